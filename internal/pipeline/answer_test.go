package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/ledger"
)

// recordedFiles is a Store holding what a run recorded, as the ledger
// branch holds it for a job whose fresh checkout has none of it.
type recordedFiles map[string][]byte

func (s recordedFiles) ReadFile(_ context.Context, path string) ([]byte, error) {
	return s[filepath.Clean(path)], nil
}

// Record implements Recorder: the entries are chained onto the recorded
// ledger and the files recorded, as a commit to the ledger branch does.
func (s recordedFiles) Record(_ context.Context, rep *Report, drafts []ledger.Draft, files []string) (Recorded, error) {
	mine, err := ledger.Chain(ledger.Head{}, drafts...)
	if err != nil {
		return Recorded{}, err
	}
	path := filepath.Clean(rep.Spec.LedgerPath)
	appended, placed, err := ledger.Rechain(s[path], mine)
	if err != nil {
		return Recorded{}, err
	}
	s[path] = append(s[path], appended...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return Recorded{}, err
		}
		s[filepath.Clean(f)] = data
	}
	return Recorded{Entries: placed}, nil
}

// record copies every file under dir into a recordedFiles and removes
// dir: the run was committed elsewhere, and this checkout lacks it.
func record(t *testing.T, dir string) recordedFiles {
	t.Helper()
	out := recordedFiles{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.Clean(p)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return out
}

// A paused run is answered where its files were recorded, the way the CLI
// names the checkpoint and the way an answer on the issue finds the
// workflow's: both find it open, read its state back from the store, and
// once decided both refuse a second answer with the decision.
func TestOpenCheckpointAndAnswer(t *testing.T) {
	t.Parallel()
	paused, cp, _ := pausedRun(t)
	where := Spec{Config: paused.Spec.Config, Datalake: paused.Spec.Datalake, LedgerPath: paused.Spec.LedgerPath, Dir: paused.Spec.Dir}
	store := record(t, paused.Spec.Datalake)
	d := &Driver{Store: store, Recorder: store}

	for _, by := range []struct{ workflow, id string }{{"", cp.ID}, {"w", ""}} {
		got, err := d.OpenCheckpoint(t.Context(), where, by.workflow, by.id)
		if err != nil || got.ID != cp.ID {
			t.Fatalf("OpenCheckpoint(%q, %q) = %s, %v; want %s", by.workflow, by.id, got.ID, err, cp.ID)
		}
	}
	if _, err := d.OpenCheckpoint(t.Context(), where, "other", ""); !errors.Is(err, ErrNoOpenCheckpoint) {
		t.Fatalf("a workflow without checkpoints: %v", err)
	}
	dec, err := checkpoint.Decide(cp, 2, "ada", "", checkpoint.SourceCLI)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Answer(t.Context(), cp, dec, where)
	if err != nil || rep.Status != Completed {
		t.Fatalf("answer: %v, %+v", err, rep)
	}
	for _, by := range []struct{ workflow, id string }{{"", cp.ID}, {"w", ""}} {
		_, err := d.OpenCheckpoint(t.Context(), where, by.workflow, by.id)
		var decided *DecidedError
		if !errors.As(err, &decided) || decided.Decision.Option != 2 || !strings.Contains(err.Error(), "already decided") {
			t.Errorf("OpenCheckpoint(%q, %q) after the decision: %v", by.workflow, by.id, err)
		}
	}
}

// A checkpoint the ledger holds but whose saved state is nowhere is a
// StateError naming it, not a run rebuilt from nothing.
func TestOpenCheckpointWithoutItsState(t *testing.T) {
	t.Parallel()
	paused, cp, _ := pausedRun(t)
	where := Spec{Config: paused.Spec.Config, Datalake: paused.Spec.Datalake, LedgerPath: paused.Spec.LedgerPath, Dir: paused.Spec.Dir}
	store := record(t, paused.Spec.Datalake)
	delete(store, filepath.Join(paused.Spec.Datalake, "checkpoints", cp.ID+".json"))
	_, err := (&Driver{Store: store}).OpenCheckpoint(t.Context(), where, "w", "")
	var state *StateError
	if !errors.As(err, &state) || state.ID != cp.ID || state.Err != nil {
		t.Fatalf("OpenCheckpoint without the saved state: %v", err)
	}
}
