package executor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// spooled writes text through a spool.Writer that keeps nothing in memory.
func spooled(t *testing.T, text string) *spool.File {
	t.Helper()
	w := spool.New(spool.Options{Dir: t.TempDir()})
	for len(text) > 0 { // odd pieces, so characters are split
		n := min(7777, len(text))
		_, _ = w.Write([]byte(text[:n]))
		text = text[n:]
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out.File == nil {
		t.Fatal("nothing was spooled")
	}
	return out.File
}

// An agent output file is the same bytes whether the output was held in
// memory or streamed from disk: every character encoding/json escapes,
// invalid UTF-8 (U+FFFD plus output_base64), and characters split by the
// encoder's reads.
func TestEncodeJSONMatchesMarshal(t *testing.T) {
	t.Parallel()
	base := strings.Repeat("plain text, é, €, 𝄞 — ", 5000) // characters of every width across 64 KiB reads
	tests := map[string]string{
		"escapes":     base + "<b>&amp;</b> \"quoted\" back\\slash \n\r\t\b\f \x01\x1f \u2028\u2029 end",
		"invalid":     base + "caf\xe9 \xff\xfe na\xefve \xe2\x82",
		"only ascii":  strings.Repeat("x", 200000),
		"one byte":    "z",
		"lead at cut": strings.Repeat("a", 65535) + "€" + strings.Repeat("b", 70000),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code := 0
			mem := &Result{Agent: "a", Provider: "command", Status: status.Succeeded, ExitCode: &code, Stderr: "<warn>",
				StartedAt: time.Unix(1, 0).UTC(), Attempts: nil}
			mem.setOutput(text)
			want, err := json.Marshal(mem)
			if err != nil {
				t.Fatal(err)
			}
			disk := *mem
			disk.setSpool(spooled(t, text))
			if disk.OutputSHA256 != mem.OutputSHA256 {
				t.Fatalf("the spool's hash %s differs from the output's %s", disk.OutputSHA256, mem.OutputSHA256)
			}
			var got bytes.Buffer
			if err := disk.EncodeJSON(&got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want)+"\n", got.String()); diff != "" {
				t.Fatalf("EncodeJSON differs from json.Marshal (-want +got):\n%.2000s", diff)
			}
			marshalled, err := json.Marshal(&disk)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(marshalled, want) {
				t.Fatal("MarshalJSON of a spooled result differs from the in-memory one")
			}

			// A failed agent's partial output, kept as raw.
			memRaw := &Result{Agent: "a", Status: status.Failed, Raw: text}
			memRaw.setOutput("")
			want, _ = json.Marshal(memRaw)
			diskRaw := *memRaw
			diskRaw.Raw, diskRaw.RawFile = "", spooled(t, text)
			got.Reset()
			if err := diskRaw.EncodeJSON(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want)+"\n" {
				t.Fatal("EncodeJSON of a spooled raw output differs from json.Marshal")
			}
		})
	}
}

// A forged marker does not move the output: not in a field an agent sets
// that is encoded before the output (Model), where a marker without the
// random nonce would be found first, nor in one encoded after it.
func TestEncodeJSONIgnoresForgedMarkers(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("y", 100)
	forged := "\x00optr-spool-output-"
	r := &Result{Agent: "a", Model: forged, Error: forged + "0000", Stderr: forged}
	r.setSpool(spooled(t, text))
	var got bytes.Buffer
	if err := r.EncodeJSON(&got); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(got.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Output != text || back.Model != r.Model || back.Error != r.Error || back.Stderr != r.Stderr {
		t.Fatalf("decoded output %.40q, model %.40q, error %q, stderr %q", back.Output, back.Model, back.Error, back.Stderr)
	}
}
