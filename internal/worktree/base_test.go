//go:build unix

package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// Tree.Apply applies a captured change to a fresh tree and gives what it
// wrote — a new file in a new directory, the index — to the run's Owner,
// the user checks run as; a patch that does not apply changes nothing.
func TestTreeApply(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	repo := newRepo(t, map[string]string{"greet.txt": "hello\n"})
	src := start(t, repo, "r1")
	agent := add(t, src, "alpha")
	writeTree(t, agent.Dir(), "new/dir/world.txt", "world\n")
	writeTree(t, agent.Dir(), "greet.txt", "hello, world\n")
	ch := capture(t, agent, Limits{})

	owner := &Owner{UID: 65534, GID: 65534}
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r2", Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(t.Context())
	fresh := add(t, r, "alpha")
	if err := fresh.Apply(t.Context(), ch.Patch); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"new", "new/dir", "new/dir/world.txt", "greet.txt", ".git/index"} {
		fi, err := os.Lstat(filepath.Join(fresh.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != owner.UID || int(st.Gid) != owner.GID {
			t.Errorf("%s is owned by %d:%d, not the run's owner", p, st.Uid, st.Gid)
		}
	}
	// (git status, run as root here, writes the index: checked last)
	if got := sh(t, fresh.Dir(), "cat greet.txt new/dir/world.txt && git -c safe.directory='*' status --porcelain"); got != "hello, world\nworld\nM  greet.txt\nA  new/dir/world.txt" {
		t.Errorf("the fresh tree after Apply:\n%s", got)
	}
	if err := fresh.Apply(t.Context(), ch.Patch); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("applying the change twice = %v, want ErrNotApplicable", err)
	}
}

func writeTree(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
