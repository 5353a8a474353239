package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/worktree"
)

// The demo as a matrix: plan, one `optr task` per agent, gather — with the
// config file gone after the plan, which the tasks and the gather must not
// need.
func TestMatrixDemo(t *testing.T) {
	demoWorkspace(t)
	p := optr(t, "plan", "--config", "testdata/demo/optr.yml", "--intent", "Explain hash chains", "--run-id", "m1", "--json")
	if p.code != 0 {
		t.Fatalf("plan exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	var planned PlanOutcome
	if err := json.Unmarshal([]byte(p.stdout), &planned); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, p.stdout)
	}
	var ids []string
	for _, e := range planned.Matrix.Include {
		ids = append(ids, e.Task)
	}
	if diff := cmp.Diff([]string{"good", "sloppy", "broken", "slow"}, ids); diff != "" {
		t.Fatalf("matrix (-want +got):\n%s", diff)
	}
	if planned.Plan != filepath.Join("optr-plan", "plan.json") || planned.RunID != "m1" {
		t.Errorf("plan outcome = %+v", planned)
	}
	if err := os.Remove(filepath.Join("testdata", "demo", "optr.yml")); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		r := optr(t, "task", "--plan", "optr-plan/plan.json", "--task", id, "--json")
		if r.code != 0 {
			t.Fatalf("task %s exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
		}
		var o TaskOutcome
		if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
			t.Fatalf("task --json: %v\n%s", err, r.stdout)
		}
		if o.Task != id || o.RunID != "m1" || o.Dir != filepath.Join("optr-tasks", "optr-task-"+id) {
			t.Errorf("task %s outcome = %+v", id, o)
		}
		if want := id == "good" || id == "slow"; o.Admissible != want {
			t.Errorf("task %s admissible = %t, want %t", id, o.Admissible, want)
		}
	}
	g := optr(t, "gather", "--plan", "optr-plan/plan.json", "--from", "optr-tasks", "--json")
	if g.code != 0 {
		t.Fatalf("gather exit %d\n%s%s", g.code, g.stdout, g.stderr)
	}
	var out Outcome
	if err := json.Unmarshal([]byte(g.stdout), &out); err != nil {
		t.Fatalf("gather --json: %v\n%s", err, g.stdout)
	}
	if out.Selected != "good" || out.Status != "completed" || out.RunID != "m1" || len(out.Table) != 4 || out.LedgerHash == "" {
		t.Errorf("gather outcome = %+v", out)
	}
	if v := optr(t, "ledger", "verify"); v.code != 0 {
		t.Fatalf("ledger verify after gather: exit %d %s", v.code, v.stderr)
	}
	// The run is recorded once: gathering again refuses.
	if again := optr(t, "gather", "--plan", "optr-plan/plan.json", "--from", "optr-tasks"); again.code != 2 || !strings.Contains(again.stderr, "m1") {
		t.Errorf("second gather: exit %d, stderr %q; want 2 naming the run", again.code, again.stderr)
	}
}

func TestMatrixGatherWithoutResultsFails(t *testing.T) {
	demoWorkspace(t)
	if p := optr(t, "plan", "--config", "testdata/demo/optr.yml", "--intent", "x", "--run-id", "m2"); p.code != 0 {
		t.Fatalf("plan exit %d\n%s", p.code, p.stderr)
	}
	g := optr(t, "gather", "--from", "nowhere")
	if g.code != 1 || !strings.Contains(g.stderr, "task good left no result below nowhere") {
		t.Fatalf("gather exit %d, stderr:\n%s", g.code, g.stderr)
	}
}

func TestMatrixUsage(t *testing.T) {
	demoWorkspace(t)
	for _, args := range [][]string{{"plan", "--help"}, {"task", "-h"}, {"gather", "--help"}, {"help"}} {
		if got := optr(t, args...); got.code != 0 || got.stdout == "" {
			t.Errorf("optr %v: exit %d, stdout %q", args, got.code, got.stdout)
		}
	}
	if got := optr(t, "--help"); !strings.Contains(got.stdout, "gather") {
		t.Errorf("the command list lacks gather:\n%s", got.stdout)
	}
	if p := optr(t, "plan", "--config", "testdata/demo/optr.yml", "--intent", "x", "--run-id", "m3"); p.code != 0 {
		t.Fatalf("plan exit %d\n%s", p.code, p.stderr)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--config", "testdata/demo/optr.yml"}, "no intent"},
		{[]string{"plan", "--config", "testdata/demo/optr.yml", "--intent", "x", "--agents", "ghost"}, `unknown agents "ghost"`},
		{[]string{"plan", "--config", "testdata/demo/optr.yml", "--intent", "x", "--workflow", "../up"}, "workflow"},
		{[]string{"task", "--plan", "optr-plan/plan.json"}, "no task"},
		{[]string{"task", "--plan", "optr-plan/plan.json", "--task", "ghost"}, `task "ghost" is not in the plan`},
		{[]string{"task", "--plan", "missing.json", "--task", "good"}, "read the plan"},
		{[]string{"gather", "--plan", "missing.json"}, "read the plan"},
		{[]string{"gather", "extra"}, "gather takes no arguments"},
	}
	for _, tt := range tests {
		got := optr(t, tt.args...)
		if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
			t.Errorf("optr %v: exit %d, stderr %q; want 2 and %q", tt.args, got.code, got.stderr, tt.want)
		}
	}
}

// optr plan names, in the plan, optr's own files in the repository that no
// agent's change may touch: the datalake and ledger the gather records in
// (--datalake, --ledger) and the config file.
func TestMatrixPlanNamesOptrsOwnFiles(t *testing.T) {
	ws := gittest.Repo(t, map[string]string{"greet.txt": "hello\n", "ops/optr.yml": `agents:
  greeter: { provider: command, run: [sh, -c, "cat >/dev/null; echo hi > greet.txt; echo done"] }
changes: { mode: apply }
`})
	t.Chdir(ws)
	p := optr(t, "plan", "--config", "ops/optr.yml", "--datalake", "ops/lake", "--ledger", "records/ledger.jsonl", "--intent", "greet", "--run-id", "m4")
	if p.code != 0 {
		t.Fatalf("plan exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	data, err := os.ReadFile(filepath.Join("optr-plan", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Own []worktree.Own `json:"own"`
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatal(err)
	}
	want := []worktree.Own{
		{Path: "records/ledger.jsonl", What: "optr's ledger"},
		{Path: "records/ledger.d", What: "optr's sealed ledger segments"},
		{Path: "ops/lake", What: "optr's datalake"},
		{Path: "ops/optr.yml", What: "optr's config file"},
	}
	if diff := cmp.Diff(want, plan.Own); diff != "" {
		t.Errorf("the plan's own files (-want +got):\n%s", diff)
	}
}
