package executor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// ReadOutputs is the reverse of EncodeJSON and MarshalJSON: the output
// and raw text come back byte for byte — every escape, invalid UTF-8 (from
// output_base64), an escaped surrogate pair, characters across reads — in
// memory when small, on disk past InMemory, and the agent's hash verifies
// them.
func TestReadOutputsReversesTheEncoding(t *testing.T) {
	t.Parallel()
	base := strings.Repeat("plain text, é, €, 𝄞 — ", 5000)
	tests := map[string]string{
		"escapes":    base + "<b>&amp;</b> \"quoted\" back\\slash \n\r\t\b\f \x01\x1f \u2028\u2029 end",
		"invalid":    base + "caf\xe9 \xff\xfe na\xefve \xe2\x82",
		"small":      "a short <answer> & \"more\"",
		"empty":      "",
		"only ascii": strings.Repeat("x", 200000),
	}
	for name, text := range tests {
		for _, onDisk := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := &Result{Agent: "a", Provider: "command", Status: status.Succeeded, Raw: "raw " + text}
				r.setOutput(text)
				if onDisk && text != "" {
					r.setSpool(spooled(t, text))
					r.Raw, r.RawFile = "", spooled(t, "raw "+text)
				}
				var file bytes.Buffer
				if err := r.EncodeJSON(&file); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "a.json")
				if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				back := &Result{}
				*back = *r
				back.Output, back.OutputBase64, back.OutputFile, back.Raw, back.RawFile = "", "", nil, "", nil
				dir := t.TempDir()
				if err := back.ReadOutputs(path, spool.Options{Dir: dir, InMemory: 64 << 10}); err != nil {
					t.Fatal(err)
				}
				got, err := back.OutputBytes()
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != text || back.OutputSHA256 != r.OutputSHA256 {
					t.Fatalf("the output read back (%d bytes, %s) is not the one written (%d bytes, %s)", len(got), back.OutputSHA256, len(text), r.OutputSHA256)
				}
				if large := len(text) > 64<<10; (back.OutputFile != nil) != large {
					t.Errorf("on disk: %t, want %t for %d bytes", back.OutputFile != nil, large, len(text))
				}
				raw := back.Raw
				if back.RawFile != nil {
					if raw, err = back.RawFile.ReadString(); err != nil {
						t.Fatal(err)
					}
				}
				var recorded struct{ Raw string } // JSON keeps U+FFFD for invalid bytes of raw
				if err := json.Unmarshal(file.Bytes(), &recorded); err != nil {
					t.Fatal(err)
				}
				if raw != recorded.Raw {
					t.Errorf("the raw text read back differs (%d bytes, want %d)", len(raw), len(recorded.Raw))
				}
				// The same file again (raw's invalid bytes aside: JSON has
				// U+FFFD for them, which encodes as itself).
				again, err := json.Marshal(back)
				if err != nil || utf8.ValidString(text) && !bytes.Equal(append(again, '\n'), file.Bytes()) {
					t.Errorf("the result read back encodes differently (%v)", err)
				}
				// Only the outputs kept are on disk: output_base64's text twin is not.
				entries, _ := os.ReadDir(dir)
				want := 0
				for _, f := range []*spool.File{back.OutputFile, back.RawFile} {
					if f != nil {
						want++
					}
				}
				if len(entries) != want {
					t.Errorf("%d files left in the spool directory, want %d", len(entries), want)
				}
			})
		}
	}
}

// A changed agent file is refused, and nothing read from it is kept.
func TestReadOutputsRefusesAChangedFile(t *testing.T) {
	t.Parallel()
	r := &Result{Agent: "a", Status: status.Succeeded}
	r.setOutput(strings.Repeat("the answer ", 20000))
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, changed := range map[string][]byte{
		"an output changed": bytes.Replace(data, []byte("the answer"), []byte("the Answer"), 1),
		"cut short":         data[:len(data)/2],
		"two values":        append(append([]byte{}, data...), data...),
		"no output":         []byte(`{"agent":"a"}`),
		"a bad escape":      bytes.Replace(data, []byte("the answer"), []byte(`the \answer`), 1),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "a.json")
			if err := os.WriteFile(path, changed, 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			back := &Result{Agent: "a", OutputSHA256: r.OutputSHA256}
			if err := back.ReadOutputs(path, spool.Options{Dir: dir, InMemory: 1024}); err == nil {
				t.Fatal("a changed file was read back")
			}
			if back.HasOutput() {
				t.Error("the result took an output from it")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%d files left in the spool directory", len(entries))
			}
		})
	}
}
