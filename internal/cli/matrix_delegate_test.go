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
	cfg := "testdata/demo/optr.yml"
	one := optr(t, "run", "--config", cfg, "--pipeline", "research", "--intent", "Explain hash chains", "--run-id", "d1", "--datalake", "one")
	if one.code != 0 {
		t.Fatalf("one-job run exit %d\n%s%s", one.code, one.stdout, one.stderr)
	}

	p := optr(t, "plan", "--config", cfg, "--pipeline", "research", "--intent", "Explain hash chains", "--run-id", "d1", "--json")
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
	want := []string{"001-hash-chains", "002-witnesses", "003-checkpoints", "004-verification-cost"}
	if diff := cmp.Diff(want, ids); diff != "" {
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

	if diff := cmp.Diff(ledgerOf(t, "one"), ledgerOf(t, "mx")); diff != "" {
		t.Errorf("ledger (-one job +matrix):\n%s", diff)
	}
	spec := filepath.Join("specs", "001_local")
	if diff := cmp.Diff(treeOf(t, filepath.Join("one", spec)), treeOf(t, filepath.Join("mx", spec))); diff != "" {
		t.Errorf("spec folder (-one job +matrix):\n%s", diff)
	}
	// The watcher's own files (.coordination/) stay with the task whose
	// agent failed; everything else is the same.
	runDir := filepath.Join("workflows", "local", "runs", "d1")
	noCoord := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".coordination/") })
	}
	if diff := cmp.Diff(noCoord(namesOf(t, filepath.Join("one", runDir))), noCoord(namesOf(t, filepath.Join("mx", runDir)))); diff != "" {
		t.Errorf("run files (-one job +matrix):\n%s", diff)
	}
	if !strings.Contains(g.stdout, "Research complete: 3/4 topics (75% success)") {
		t.Errorf("gather's summary lacks the success line:\n%s", g.stdout)
	}
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
