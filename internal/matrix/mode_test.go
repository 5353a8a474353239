package matrix

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/pipeline"
)

// TestGatherIsTheOneJobRun runs the same config once in one job and once
// as plan → tasks → gather: the ledger entry (apart from times and the
// scores made of them), the run's files and π* must be the same.
func TestGatherIsTheOneJobRun(t *testing.T) {
	t.Parallel()
	cfg := parseConfig(t, demoConfig)
	plan, ws := newPlan(t, cfg)

	one := filepath.Join(t.TempDir(), ".optr")
	oneSpec, err := plan.Spec(one, filepath.Join(one, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	oneRep, err := (&pipeline.Driver{Deps: testDeps()}).Run(t.Context(), oneSpec)
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(ws, "optr-tasks")
	runTasks(t, plan, ws, out)
	g, err := Gather(t.Context(), plan, downloaded(t, out, false))
	if err != nil {
		t.Fatal(err)
	}
	mx := filepath.Join(t.TempDir(), ".optr")
	mxSpec, err := plan.Spec(mx, filepath.Join(mx, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	mxRep, err := (&pipeline.Driver{Deps: testDeps(), Mode: GatherMode{Mode: plan.Mode, Gathered: g}}).Run(t.Context(), mxSpec)
	if err != nil {
		t.Fatal(err)
	}

	if mxRep.Status != pipeline.Completed || mxRep.Selected != "good" || oneRep.Selected != mxRep.Selected {
		t.Fatalf("matrix run %s π*=%q, one-job run π*=%q", mxRep.Status, mxRep.Selected, oneRep.Selected)
	}
	oneLedger := comparable(t, one)
	if last := oneLedger[len(oneLedger)-1]; last["kind"] != "run" || len(last["results"].([]any)) != 3 {
		t.Fatalf("one-job ledger = %v, want a run entry with three results", oneLedger)
	}
	if diff := cmp.Diff(oneLedger, comparable(t, mx)); diff != "" {
		t.Errorf("ledger (-one job +matrix):\n%s", diff)
	}
	if diff := cmp.Diff(runFiles(t, oneRep), runFiles(t, mxRep)); diff != "" {
		t.Errorf("run files (-one job +matrix):\n%s", diff)
	}
	oneResult, _ := os.ReadFile(oneRep.Run.Path("result.md"))
	mxResult, _ := os.ReadFile(mxRep.Run.Path("result.md"))
	if string(oneResult) != string(mxResult) || len(mxResult) == 0 {
		t.Errorf("result.md: one job %q, matrix %q", oneResult, mxResult)
	}
}

// comparable reads the ledger of lake without what measured time makes
// differ between two runs: timestamps, durations, scores and the hashes
// over them.
func comparable(t *testing.T, lake string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(lake, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var e map[string]any
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"time", "hash", "prev"} {
			delete(e, k)
		}
		results, _ := e["results"].([]any)
		for _, r := range results {
			for _, k := range []string{"ttv_ms", "exec_ms", "score"} {
				delete(r.(map[string]any), k)
			}
		}
		out = append(out, e)
	}
	return out
}

func runFiles(t *testing.T, rep *pipeline.Report) []string {
	t.Helper()
	files, err := rep.Run.Files()
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(rep.Run.Dir, f)
		if r = filepath.ToSlash(r); !strings.HasPrefix(r, ".coordination/") { // the watcher's own files stay with the task whose agent failed
			rel = append(rel, r)
		}
	}
	slices.Sort(rel)
	return rel
}
