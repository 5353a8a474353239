package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// recordedFiles is a Store holding what a run recorded, as the ledger
// branch holds it for a job whose fresh checkout has none of it.
type recordedFiles map[string][]byte

func (s recordedFiles) ReadFile(_ context.Context, path string) ([]byte, error) {
	return s[filepath.Clean(path)], nil
}

// Record implements Recorder: the entries are chained onto the recorded
// ledger and the files recorded, as a commit to the ledger branch does.
func (s recordedFiles) Record(_ context.Context, rep *Outcome, drafts []ledger.Draft, files []string) (Recorded, error) {
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
	if err != nil || rep.Status != status.Completed {
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

// A stage chain paused at a HICCUP checkpoint — its second stage crashed,
// or exited without handing off — is answered with Proceed in a fresh
// checkout (its files only where they were recorded): the failed stage
// runs again from its saved input, then the later ones, and the run
// completes; the first stage is not run again.
func TestProceedRetriesTheFailedStage(t *testing.T) {
	t.Parallel()
	for name, second := range map[string]string{
		"crash":           `[ -f fixed ] || exit 3; cat > $OPTR_OUTPUT_DIR/seen-by-second; echo second-output; echo '<<<OPTR:HANDOFF:third>>>'`,
		"handoff missing": `[ -f fixed ] || { echo no handoff; exit 0; }; cat > $OPTR_OUTPUT_DIR/seen-by-second; echo second-output; echo '<<<OPTR:HANDOFF:third>>>'`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, d, where := hiccupChain(t, second)
			if err := os.WriteFile(filepath.Join(dir, "fixed"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			rep := proceed(t, d, where)
			if rep.Status != status.Completed || rep.Selected != "third" {
				t.Fatalf("after Proceed: %s, π* %q: %s", rep.Status, rep.Selected, rep.Message)
			}
			// What the stages left in $OPTR_OUTPUT_DIR the first time was
			// read back with the run's files.
			left := filepath.Join(rep.RunDir, datalake.DirAgentFiles)
			if got := readFile(t, filepath.Join(left, "first-ran")); got != "run\n" {
				t.Errorf("the first stage ran again: %q", got)
			}
			if got := readFile(t, filepath.Join(left, "seen-by-second")); !strings.Contains(got, "first-output") {
				t.Errorf("the retried stage did not get its saved input: %q", got)
			}
			if got := readFile(t, filepath.Join(left, "seen-by-third")); !strings.Contains(got, "second-output") {
				t.Errorf("the third stage did not get the retried stage's output: %q", got)
			}
			kinds, run := recordedLedger(t, d, where)
			if kinds != "escalation,checkpoint,decision,run" {
				t.Errorf("ledger kinds %s", kinds)
			}
			list, _ := run.Fields["stages"].([]any)
			var statuses []string
			for _, s := range list {
				m := s.(map[string]any)
				statuses = append(statuses, fmt.Sprintf("%s:%s:%v", m["stage"], m["status"], m["attempts"]))
			}
			if got := strings.Join(statuses, " "); got != "first:handed_off:1 second:handed_off:2 third:completed:1" {
				t.Errorf("run entry's stages: %s", got)
			}
		})
	}
}

// hiccupChain runs a three-stage chain whose second stage runs second
// (a shell command) until it pauses at a HICCUP checkpoint, then moves its
// datalake into a store: the answering Driver d works in a fresh
// checkout of the workspace dir, where the run was recorded elsewhere.
func hiccupChain(t *testing.T, second string) (dir string, d *Driver, where Spec) {
	t.Helper()
	dir = t.TempDir()
	cfg, err := config.Parse("optr.yml", []byte(`agents:
  first: { provider: command, run: [sh, -c, "cat >/dev/null; echo run >> $OPTR_OUTPUT_DIR/first-ran; echo first-output; echo '<<<OPTR:HANDOFF:second>>>'"] }
  second: { provider: command, run: [sh, -c, "`+second+`"] }
  third: { provider: command, run: [sh, -c, "cat > $OPTR_OUTPUT_DIR/seen-by-third; echo '# done'"] }
selection: { on-no-admissible: checkpoint }
pipelines:
  chain: { mode: stages, agents: [first, second, third], restarts: 0 }
`))
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	spec := Spec{Config: cfg, Workflow: "w", RunID: "s-3", Intent: "go", Pipeline: "chain",
		Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
	env := Deps{Environ: []string{"PATH=" + os.Getenv("PATH")}}
	paused, err := (&Driver{Deps: env}).Run(t.Context(), spec)
	if err != nil || paused.Status != status.Paused || paused.Trigger != checkpoint.TriggerHiccup {
		t.Fatalf("first run: %v, %s %s", err, paused.Status, paused.Trigger)
	}
	store := record(t, lake)
	return dir, &Driver{Deps: env, Store: store, Recorder: store}, Spec{Config: cfg, Datalake: lake, LedgerPath: spec.LedgerPath, Dir: dir}
}

// proceed answers the workflow's open HICCUP checkpoint with Proceed,
// whose option says it retries the second stage.
func proceed(t *testing.T, d *Driver, where Spec) *Outcome {
	t.Helper()
	cp, err := d.OpenCheckpoint(t.Context(), where, "w", "")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := cp.Option(1); !strings.Contains(o.Description, "retry stage second") {
		t.Errorf("option 1 of the HICCUP checkpoint: %+v", o)
	}
	dec, err := checkpoint.Decide(cp, 1, "ada", "fixed it", checkpoint.SourceComment)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Answer(t.Context(), cp, dec, where)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A retried stage that fails again pauses the run at its next checkpoint,
// which the next Proceed answers; the ledger keeps every step in order.
func TestProceedAgainAfterTheRetryFails(t *testing.T) {
	t.Parallel()
	dir, d, where := hiccupChain(t, `cat >/dev/null; [ -f fixed ] || exit 3; echo '<<<OPTR:HANDOFF:third>>>'`)
	again := proceed(t, d, where)
	if again.Status != status.Paused || again.CheckpointID != "cp-s-3-2" || again.Trigger != checkpoint.TriggerHiccup {
		t.Fatalf("the failed retry: %s at %q (%s): %s", again.Status, again.CheckpointID, again.Trigger, again.Message)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := proceed(t, d, where); rep.Status != status.Completed || rep.Selected != "third" {
		t.Fatalf("the second Proceed: %s, π* %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	if kinds, _ := recordedLedger(t, d, where); kinds != "escalation,checkpoint,decision,escalation,checkpoint,decision,run" {
		t.Errorf("ledger kinds %s", kinds)
	}
}

// recordedLedger returns the kinds of the entries d's store recorded in
// the ledger, and the last entry.
func recordedLedger(t *testing.T, d *Driver, where Spec) (kinds string, last ledger.Entry) {
	t.Helper()
	var ks []string
	err := ledger.Scan(strings.NewReader(string(d.Store.(recordedFiles)[filepath.Clean(where.LedgerPath)])), func(e ledger.Entry) error {
		ks, last = append(ks, e.Kind), e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(ks, ","), last
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A checkpoint names the agents' outputs by their files and hashes, not
// in its state; the answer reads them back (from the Store, when the
// checkout lacks them) and verifies them: a changed or missing agent
// output file is a StateError, and nothing is decided.
func TestAnswerReadsTheOutputsBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(data []byte) []byte
		want   string
	}{
		{name: "as recorded"},
		{name: "changed", change: func(b []byte) []byte { return []byte(strings.Replace(string(b), "TODO later", "TODO LATER", 1)) }, want: "the file was changed"},
		{name: "missing", change: func([]byte) []byte { return nil }, want: "sloppy.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			paused, cp, _ := pausedRun(t)
			if strings.Contains(string(cp.State), "TODO later") {
				t.Fatalf("the checkpoint's state holds the output:\n%s", cp.State)
			}
			where := Spec{Config: paused.Spec.Config, Datalake: paused.Spec.Datalake, LedgerPath: paused.Spec.LedgerPath, Dir: paused.Spec.Dir}
			file := filepath.Clean(paused.AgentOutputPath("sloppy"))
			store := record(t, paused.Spec.Datalake)
			if _, ok := store[file]; !ok {
				t.Fatalf("%s was not recorded", file)
			}
			if tc.change != nil {
				if store[file] = tc.change(store[file]); store[file] == nil {
					delete(store, file)
				}
			}
			dec, err := checkpoint.Decide(cp, 1, "ada", "", checkpoint.SourceCLI)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := (&Driver{Store: store, Recorder: store}).Answer(t.Context(), cp, dec, where)
			if tc.want != "" {
				var state *StateError
				if !errors.As(err, &state) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("answer from a %s agent output file: %v, want a StateError about it", tc.name, err)
				}
				return
			}
			if err != nil || rep.Status != status.Completed || rep.Selected != "sloppy" {
				t.Fatalf("answer: %v, %+v", err, rep)
			}
			result, err := os.ReadFile(rep.Path(datalake.FileResult))
			if err != nil || string(result) != "TODO later\n" {
				t.Errorf("result.md (%v): %q, want the output read back", err, result)
			}
		})
	}
}
