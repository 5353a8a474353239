package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// pausedRun runs one command agent whose output breaks the hard
// constraint under on-no-admissible: checkpoint, and pauses it.
func pausedRun(t *testing.T) (*Outcome, checkpoint.Checkpoint, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse("apply.yml", []byte(`agents:
  sloppy: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'TODO later'"] }
constraints:
  no-todo: { check: not-regex, pattern: TODO }
selection: { on-no-admissible: checkpoint }
`))
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Config: cfg, Workflow: "w", RunID: "r1", Intent: "x", Dir: dir,
		Datalake: filepath.Join(dir, ".optr"), LedgerPath: filepath.Join(dir, ".optr", "ledger.jsonl")}
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	d := &Driver{Deps: Deps{Environ: []string{"PATH=" + os.Getenv("PATH")}, Now: func() time.Time { return now }}}
	rep, err := d.Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Paused || rep.Trigger != checkpoint.TriggerNoAdmissible {
		t.Fatalf("run ended %s/%s, want paused at NO_ADMISSIBLE", rep.Status, rep.Trigger)
	}
	cp, err := checkpoint.Load(datalake.Open(s.Datalake).CheckpointPath(rep.CheckpointID))
	if err != nil {
		t.Fatal(err)
	}
	return rep, cp, dir
}

func TestApplyEveryOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		option   int
		status   status.Status
		selected string
		kinds    string
		result   bool
	}{
		{1, status.Completed, "sloppy", "checkpoint,decision,run", true}, // Proceed: the best-scoring result anyway
		{2, status.Completed, "", "checkpoint,decision,run", false},      // Skip: record, select nothing
		{3, status.Failed, "", "checkpoint,decision,run", false},         // Abort
		{4, status.Paused, "", "checkpoint", false},                      // Pause: nothing changes
	}
	for _, tt := range tests {
		t.Run(checkpoint.StandardOptions(checkpoint.TriggerNoAdmissible)[tt.option-1].Label, func(t *testing.T) {
			t.Parallel()
			paused, cp, dir := pausedRun(t)
			// Resume as another process would: from the saved checkpoint only.
			saved, err := checkpoint.Load(filepath.Join(dir, ".optr", "checkpoints", cp.ID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			d, err := checkpoint.Decide(saved, tt.option, "ada", "note", checkpoint.SourceCLI)
			if err != nil {
				t.Fatal(err)
			}
			later := time.Date(2026, 11, 21, 9, 5, 0, 0, time.UTC)
			drv := &Driver{Deps: Deps{Now: func() time.Time { return later }}}
			where := Spec{Config: paused.Spec.Config, Datalake: paused.Spec.Datalake, LedgerPath: paused.Spec.LedgerPath, Dir: dir}
			rep, err := drv.Answer(t.Context(), saved, d, where)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status || rep.Selected != tt.selected {
				t.Fatalf("after option %d: %s %q, want %s %q", tt.option, rep.Status, rep.Selected, tt.status, tt.selected)
			}
			var kinds []string
			f, _ := os.Open(paused.Spec.LedgerPath)
			defer f.Close()
			if err := ledger.Scan(f, func(e ledger.Entry) error { kinds = append(kinds, e.Kind); return nil }); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(kinds, ","); got != tt.kinds {
				t.Fatalf("ledger = %s, want %s", got, tt.kinds)
			}
			if _, err := ledger.VerifyFile(paused.Spec.LedgerPath); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(filepath.Join(rep.RunDir, "result.md"))
			if (err == nil) != tt.result {
				t.Fatalf("result.md exists = %v, want %v", err == nil, tt.result)
			}
			f2, _ := os.Open(paused.Spec.LedgerPath)
			defer f2.Close()
			open, _, err := checkpoint.Status(f2, cp.ID)
			if err != nil || open != (tt.status == status.Paused) {
				t.Fatalf("checkpoint open = %v (%v) after option %d", open, err, tt.option)
			}
		})
	}
}
