package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// Every output_sha256 recorded in an agent output file is the hash of bytes
// that file holds, also when the agent printed invalid UTF-8 (which JSON
// can only carry as U+FFFD): the hashes are recomputed from the files.
func TestOutputHashesAreReproducibleFromTheFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasks := []Task{
		sh(t, "latin1", `printf 'caf\351 \377\376 na\357ve'`),
		sh(t, "cut-rune", `printf 'ok \342\202'`),
		sh(t, "utf8", `printf 'café ✓'`),
		sh(t, "empty", `true`),
	}
	_, err := Run(t.Context(), Options{
		Tasks:   tasks,
		Request: agent.Request{Intent: "x", Dir: dir},
		Sink: func(r *Result) error {
			data, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, r.Agent+".json"), data, 0o644)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, task.Agent.Name()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		b, err := r.OutputBytes()
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != r.OutputSHA256 {
			t.Errorf("%s: the file's bytes hash to %s, output_sha256 is %s", r.Agent, got, r.OutputSHA256)
		}
		if want := task.Agent.Name() == "latin1" || task.Agent.Name() == "cut-rune"; (r.OutputBase64 != "") != want {
			t.Errorf("%s: output_base64 %q, want it only for invalid UTF-8", r.Agent, r.OutputBase64)
		}
	}
}
