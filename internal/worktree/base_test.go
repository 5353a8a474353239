package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Options.Base starts every tree at that commit, not at the workspace's
// HEAD (a matrix gather re-checks a change at the plan's commit after the
// branch moved on); a commit the workspace does not hold is refused,
// naming it.
func TestStartAtBase(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"greet.txt": "hello\n"})
	first := strings.TrimSpace(sh(t, repo, "git rev-parse HEAD"))
	sh(t, repo, "echo moved > greet.txt && git -c user.name=a -c user.email=a@example.com commit -qam moved")

	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r1", Base: first})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(t.Context())
	if r.Base() != first {
		t.Errorf("Base() = %s, want %s", r.Base(), first)
	}
	tr := add(t, r, "alpha")
	if data, err := os.ReadFile(filepath.Join(tr.Dir(), "greet.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("greet.txt in a tree at %s = %q, %v", first, data, err)
	}
	if ch := capture(t, tr, Limits{}); len(ch.Files) != 0 {
		t.Errorf("a fresh tree at the base has a change: %+v", ch.Files)
	}

	missing := strings.Repeat("1", len(first))
	_, err = Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r2", Base: missing})
	if err == nil || !strings.Contains(err.Error(), "does not hold commit "+missing) {
		t.Errorf("Start at a commit the workspace lacks = %v", err)
	}
}
