package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// A command check runs in the directory WithDir names, one result's
// worktree, and in Options.Dir otherwise.
func TestWithDir(t *testing.T) {
	t.Parallel()
	ws, tree := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "mark"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := []Constraint{{Name: "marked", Hard: true, Checker: mustNew(t, "marked",
		config.Constraint{Check: "command", Run: []string{"test", "-e", "mark"}}, Options{Dir: ws})}}

	in := Evaluate(WithDir(t.Context(), tree), cs, "out")
	if !in.Admissible {
		t.Errorf("in the worktree: %+v", in)
	}
	out := Evaluate(t.Context(), cs, "out")
	want := []Verdict{{Constraint: "marked", Hard: true, Status: status.Failed, Reason: "command test exited with status 1"}}
	if diff := cmp.Diff(want, out.Verdicts); diff != "" {
		t.Errorf("in the workspace (-want +got):\n%s", diff)
	}
	if got := Evaluate(WithDir(t.Context(), ""), cs, "out"); got.Admissible {
		t.Error("an empty WithDir moved the check out of the workspace")
	}
}
