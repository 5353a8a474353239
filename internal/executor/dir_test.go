package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
)

// Each task runs in its own Dir and its command checks run there too: the
// driver gives every coding agent its worktree this way.
func TestTaskDir(t *testing.T) {
	t.Parallel()
	marked, plain := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(marked, "mark"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := sh(t, "a", "pwd"), sh(t, "b", "pwd")
	a.Dir, b.Dir = marked, plain
	cc, err := check.New("marked", config.Constraint{Check: config.CheckCommand, Run: []string{"test", "-e", "mark"}}, check.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(t.Context(), Options{Tasks: []Task{a, b}, Constraints: []check.Constraint{{Name: "marked", Hard: true, Checker: cc}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		want, dir := r.Agent == "a", map[string]string{"a": marked, "b": plain}[r.Agent]
		if got, _ := filepath.EvalSymlinks(strings.TrimSpace(r.Output)); got != mustEval(t, dir) {
			t.Errorf("%s ran in %q, want %q", r.Agent, r.Output, dir)
		}
		if r.Checks.Admissible != want {
			t.Errorf("%s: checks %+v, want admissible %v", r.Agent, r.Checks, want)
		}
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
