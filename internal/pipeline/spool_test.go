package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// A select run whose agent prints more than fits in memory streams its
// output to disk: the agent file, result.md, the hash in the ledger and
// the check all see the whole output, redacted; no spool file is left.
func TestSelectRunStreamsLargeOutputs(t *testing.T) {
	t.Parallel()
	const key = "sk-test-0123456789abcdefXYZ"
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "optr.yml")
	cfgText := `agents:
  big: { provider: command, pass-env: [OPENAI_API_KEY], run: [sh, -c, 'head -c 1500000 /dev/zero | tr "\0" "x"; printf "<&> %s caf\351 €\n" "$OPENAI_API_KEY"; echo END'] }
  small: { provider: command, run: [sh, -c, 'echo small'] }
constraints:
  ends: { check: regex, pattern: 'END\n$', hard: true }
detection: { on-finding: warn }
`
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	spec := Spec{Config: cfg, Workflow: "big", RunID: "r1", Intent: "print", Datalake: lake,
		LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
	env := map[string]string{"OPENAI_API_KEY": key}
	deps := Deps{Environ: []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "OPENAI_API_KEY=" + key}, Getenv: func(k string) string { return env[k] }}
	rep, err := (&Driver{Deps: deps}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "big" {
		t.Fatalf("status %s, selected %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	if r := rep.result("big"); r == nil || r.OutputFile == nil {
		t.Fatal("the 1.5 MB output was not streamed to disk")
	}
	// Threat detection read the output from its spool file: the key the
	// agent printed (redacted) is on its last line but one.
	if det := rep.Detection; det == nil || det.Verdict != "warn" || len(det.Findings) != 1 || det.Findings[0].Rule != "known-secret" || det.Findings[0].Line != 1 {
		t.Errorf("detection %+v, want a warning for the key on line 1 (after 1.5 MB of x)", det)
	}
	want := strings.Repeat("x", 1500000) + "<&> [redacted] caf\xe9 €\nEND\n"
	sum := sha256.Sum256([]byte(want))
	wantSum := hex.EncodeToString(sum[:])

	data, err := os.ReadFile(filepath.Join(rep.RunDir, "agent-outputs", "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got executor.Result
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	raw, _ := got.OutputBytes()
	if string(raw) != want || got.OutputSHA256 != wantSum {
		t.Fatalf("agent file: %d output bytes with sha %s, want %d with %s", len(raw), got.OutputSHA256, len(want), wantSum)
	}
	// The file is the compact encoding of the result, as json.Marshal
	// writes it for a result held in memory.
	got.Output = string(raw) // the bytes, as the result held them
	again, err := json.Marshal(&got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), data) {
		i := 0
		for i < len(again) && i < len(data) && again[i] == data[i] {
			i++
		}
		t.Errorf("the agent file is not the compact encoding of its result: at %d, file %q, encoding %q", i, data[max(0, i-80):min(len(data), i+80)], again[max(0, i-80):min(len(again), i+80)])
	}
	if result, _ := os.ReadFile(filepath.Join(rep.RunDir, "result.md")); string(result) != want {
		t.Errorf("result.md has %d bytes, want the %d of the output", len(result), len(want))
	}
	es := ledgerEntries(t, spec.LedgerPath)
	results, _ := es[len(es)-1].Fields["results"].([]any)
	for _, r := range results {
		if m := r.(map[string]any); m["agent"] == "big" && m["output_sha256"] != wantSum {
			t.Errorf("ledger output_sha256 %v, want %s", m["output_sha256"], wantSum)
		}
	}
	err = filepath.WalkDir(lake, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), spool.FilePrefix) {
			t.Errorf("spool file %s left behind", p)
		}
		b, err := os.ReadFile(p)
		if bytes.Contains(b, []byte(key[:10])) {
			t.Errorf("%s holds the key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
