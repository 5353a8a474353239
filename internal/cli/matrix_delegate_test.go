package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The demo's research pipeline (four topics) once in one job and once as a
// matrix — the coordinator in plan, one task per topic, gather — must leave
// the same ledger entry (apart from times), spec folder and OVERVIEW.md.
func TestMatrixDelegateIsTheOneJobRun(t *testing.T) {
	demoWorkspace(t)
	g := delegateBothWays(t, "testdata/demo/optr.yml", "d1",
		[]string{"001-hash-chains", "002-witnesses", "003-checkpoints", "004-verification-cost"}, true)
	if !strings.Contains(g, "Research complete: 3/4 topics (75% success)") {
		t.Errorf("gather's summary lacks the success line:\n%s", g)
	}
}

// With candidates: 2 each topic is run by two specialists, a task each,
// each writing its report in a folder of its own: the gather puts every
// report where the one-job run's specialist wrote it, and the two runs
// leave the same files.
func TestMatrixDelegateWithCandidatesIsTheOneJobRun(t *testing.T) {
	demoWorkspace(t)
	data, err := os.ReadFile("testdata/demo/optr.yml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(data), "    threshold: 0.5\n", "    threshold: 0.5\n    candidates: 2\n", 1)
	if cfg == string(data) {
		t.Fatal("the demo's research pipeline has no threshold line to add candidates after")
	}
	if err := os.WriteFile("candidates.yml", []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// sloppy fails in two tasks, which one job's watcher counts together.
	g := delegateBothWays(t, "candidates.yml", "d2", []string{
		"001-good-hash-chains", "001-slow-hash-chains", "002-slow-witnesses", "002-sloppy-witnesses",
		"003-sloppy-checkpoints", "003-good-checkpoints", "004-good-verification-cost", "004-slow-verification-cost",
	}, false)
	if !strings.Contains(g, "Research complete: 4/4 topics (100% success)") {
		t.Errorf("gather's summary lacks the success line:\n%s", g)
	}
	reports, _ := filepath.Glob(filepath.Join("mx", "specs", "001_local", ".candidates", "*", "*.md"))
	if len(reports) != 8 {
		t.Errorf("the gather left %d candidates' reports, each in its own folder: %v; want 8", len(reports), reports)
	}
}

// delegateBothWays runs the research pipeline of the config at cfg as run
// id in one job (datalake one) and as a matrix (datalake mx), whose tasks
// must be wantTasks, and compares what the two leave. It returns what the
// gather printed.
//
// Over the matrix each task has a watcher of its own, which counts only
// its own agent's failures: when one specialist fails in two tasks, the
// second escalation entry's failed_agents (and the synthesis task its
// actions name) differ from the one job's, whose watcher saw both, and
// the one job records the two in the order they failed, the gather in
// the plan's. Unless sameWatcher, the escalation entries are compared by
// agent, without those members and their seq and ids.
func delegateBothWays(t *testing.T, cfg, id string, wantTasks []string, sameWatcher bool) string {
	t.Helper()
	one := optr(t, "run", "--config", cfg, "--pipeline", "research", "--intent", "Explain hash chains", "--run-id", id, "--datalake", "one")
	if one.code != 0 {
		t.Fatalf("one-job run exit %d\n%s%s", one.code, one.stdout, one.stderr)
	}

	p := optr(t, "plan", "--config", cfg, "--pipeline", "research", "--intent", "Explain hash chains", "--run-id", id, "--json")
	if p.code != 0 {
		t.Fatalf("plan exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	var planned PlanOutcome
	if err := json.Unmarshal([]byte(p.stdout), &planned); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range planned.Tasks {
		ids = append(ids, task.ID)
	}
	if diff := cmp.Diff(wantTasks, ids); diff != "" {
		t.Fatalf("delegate tasks (-want +got):\n%s", diff)
	}
	for _, id := range ids {
		if r := optr(t, "task", "--task", id); r.code != 0 {
			t.Fatalf("task %s exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
		}
	}
	g := optr(t, "gather", "--datalake", "mx")
	if g.code != 0 {
		t.Fatalf("gather exit %d\n%s%s", g.code, g.stdout, g.stderr)
	}

	perJob := func(es []map[string]any) []map[string]any {
		if sameWatcher {
			return es
		}
		var at []int // the escalation entries, by agent in the places they hold
		var escalations []map[string]any
		for i, e := range es {
			if e["kind"] == "escalation" {
				for _, k := range []string{"failed_agents", "actions", "escalation", "seq"} {
					delete(e, k)
				}
				at, escalations = append(at, i), append(escalations, e)
			}
		}
		slices.SortFunc(escalations, func(a, b map[string]any) int { return strings.Compare(a["agent"].(string), b["agent"].(string)) })
		for j, i := range at {
			es[i] = escalations[j]
		}
		return es
	}
	if diff := cmp.Diff(perJob(ledgerOf(t, "one")), perJob(ledgerOf(t, "mx"))); diff != "" {
		t.Errorf("ledger (-one job +matrix):\n%s", diff)
	}
	spec := filepath.Join("specs", "001_local")
	if diff := cmp.Diff(treeOf(t, filepath.Join("one", spec)), treeOf(t, filepath.Join("mx", spec))); diff != "" {
		t.Errorf("spec folder (-one job +matrix):\n%s", diff)
	}
	// The watcher's own files (.coordination/) stay with the task whose
	// agent failed; everything else is the same.
	runDir := filepath.Join("workflows", "local", "runs", id)
	noCoord := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".coordination/") })
	}
	if diff := cmp.Diff(noCoord(namesOf(t, filepath.Join("one", runDir))), noCoord(namesOf(t, filepath.Join("mx", runDir)))); diff != "" {
		t.Errorf("run files (-one job +matrix):\n%s", diff)
	}
	return g.stdout
}

// ledgerOf reads lake's ledger without what measured time makes differ.
func ledgerOf(t *testing.T, lake string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(lake, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
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
	if len(out) == 0 {
		t.Fatalf("%s: empty ledger", lake)
	}
	return out
}

// treeOf maps every file below dir to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rel := range namesOf(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = string(data)
	}
	return out
}

// namesOf lists the files below dir, relative, sorted.
func namesOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
