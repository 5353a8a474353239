package worktree

import (
	"path/filepath"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

func sh(t testing.TB, dir, script string) string { t.Helper(); return gittest.Sh(t, dir, script) }

func newRepo(t testing.TB, files map[string]string) string { t.Helper(); return gittest.Repo(t, files) }

// start starts a run on repo with its worktrees in a temporary root, and
// closes it when the test ends.
func start(t testing.TB, repo, runID string) *Run {
	t.Helper()
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(t.Context()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r
}

func add(t testing.TB, r *Run, agent string) *Tree {
	t.Helper()
	tr, err := r.Add(t.Context(), agent)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func capture(t testing.TB, tr *Tree, lim Limits) Change {
	t.Helper()
	ch, err := tr.Capture(t.Context(), lim)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// addWritten adds agent's tree to r and fails the test when it was not
// written from the run's snapshot (git checked it out instead).
func addWritten(t testing.TB, r *Run, agent string) *Tree {
	t.Helper()
	tr := add(t, r, agent)
	if !r.snap.written {
		t.Fatalf("the tree of %s was not written from the snapshot", agent)
	}
	return tr
}
