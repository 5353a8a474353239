package matrix

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// FuzzReadPlan reads plan.json as a later job does (issue 27 item 15): it
// never panics, and a plan it accepts writes back to a plan that reads
// the same (nothing it accepted was lost or read as something else).
func FuzzReadPlan(f *testing.F) {
	plan, _ := newPlan(f, parseConfig(f, demoConfig))
	dir := f.TempDir()
	path, err := plan.Write(dir)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(bytes.Replace(seed, []byte(`"plan_version": 1`), []byte(`"plan_version": 2`), 1))
	f.Add([]byte(`{"plan_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := filepath.Join(t.TempDir(), PlanFile)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadPlan(in)
		if err != nil {
			return
		}
		again, err := p.Write(t.TempDir())
		if err != nil {
			t.Fatalf("an accepted plan does not write back: %v", err)
		}
		q, err := ReadPlan(again)
		if err != nil {
			t.Fatalf("an accepted plan, written back, is refused: %v", err)
		}
		if q.ConfigSHA256 != p.ConfigSHA256 || q.IntentSHA256 != p.IntentSHA256 || q.RunID != p.RunID || len(q.Tasks) != len(p.Tasks) {
			t.Fatalf("plan %+v reads back as %+v", p, q)
		}
	})
}

// FuzzGatherResult fuzzes one task's result.json below a real gather
// (issue 27 item 15): Gather never panics nor fails, and a result it
// takes is the planned task's, with the output its folder holds.
func FuzzGatherResult(f *testing.F) {
	plan, ws := newPlan(f, parseConfig(f, demoConfig))
	out := filepath.Join(ws, "optr-tasks")
	runTasks(f, plan, ws, out)
	task := plan.Tasks[0]
	dir := filepath.Join(out, TaskDirName(task.ID))
	seed, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		f.Fatal(err)
	}
	output, err := os.ReadFile(filepath.Join(dir, OutputFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(bytes.Replace(seed, []byte(`"admissible": false`), []byte(`"admissible": true`), -1))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		from := t.TempDir()
		tdir := filepath.Join(from, TaskDirName(task.ID))
		if err := os.CopyFS(tdir, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tdir, ResultFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Gather(t.Context(), plan, from)
		if err != nil {
			t.Fatalf("Gather failed on one bad result: %v", err)
		}
		r := g.Results[0]
		if len(g.Refused) > 0 {
			if r.Status != status.Failed {
				t.Fatalf("a refused result was taken as %s", r.Status)
			}
			return
		}
		if r.Agent != task.ResultName() || r.Output != string(output) || r.OutputSHA256 != executor.SHA256Hex(string(output)) {
			t.Fatalf("took a result of %q with output %q", r.Agent, r.Output)
		}
	})
}
