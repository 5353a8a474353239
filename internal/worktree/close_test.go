package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Discard takes every worktree away at once (their directories are gone
// when it returns, git lists none) and deletes their files in the
// background; once Wait returns, nothing of the run is left under the
// root, lock included. Close after Discard has nothing left to do.
func TestDiscardDeletesInTheBackground(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	r := start(t, repo, "run-1")
	root := r.root
	trees := []*Tree{add(t, r, "first"), addCopied(t, r, "second"), addCopied(t, r, "third")}
	sh(t, trees[1].Dir(), "echo junk > junk.txt && mkdir -p deep/er && echo x > deep/er/x")
	if err := trees[2].Remove(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.Discard(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, tr := range trees {
		if _, err := os.Lstat(tr.Dir()); !os.IsNotExist(err) {
			t.Errorf("%s's worktree is still there after Discard: %v", tr.Agent(), err)
		}
	}
	if got := sh(t, repo, "git worktree list --porcelain | grep -c ^worktree; ls -A .git/worktrees 2>/dev/null | wc -l"); got != "1\n0" {
		t.Errorf("registrations left after Discard (worktrees listed, directories):\n%s", got)
	}
	if err := r.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left under the root after Wait: %v", left)
	}
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// Close returns once everything is deleted: nothing of the run is left
// under the root, also when the run's context is already cancelled.
func TestCloseDeletesEverything(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	r := start(t, repo, "run-1")
	root := r.root
	add(t, r, "first")
	sh(t, addCopied(t, r, "second").Dir(), "mkdir -p deep/er && echo x > deep/er/x")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left under the root after Close: %v", left)
	}
}

// A run killed while its removed worktrees were still being deleted
// leaves them in its trash; the next Start deletes them.
func TestStartPrunesATrashLeftBehind(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	root := filepath.Join(t.TempDir(), "wt")
	dead, err := Start(t.Context(), Options{Workspace: repo, Root: root, RunID: "dead"})
	if err != nil {
		t.Fatal(err)
	}
	add(t, dead, "agent")
	left := filepath.Join(dead.dir, trashDir, "1-agent", "x")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	dead.lock.release() // killed: the kernel drops the lock, Close never runs

	next, err := Start(t.Context(), Options{Workspace: repo, Root: root, RunID: "next"})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close(t.Context())
	if _, err := os.Stat(dead.dir); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory and trash are still there: %v", err)
	}
	if list := sh(t, repo, "git worktree list --porcelain"); strings.Contains(list, dead.dir) {
		t.Errorf("the dead run's worktree is still registered:\n%s", list)
	}
}

// Worktrees are copied in a repository whose objects are SHA-256 too:
// the index carries 32-byte ids and a SHA-256 checksum.
func TestCopySHA256Repository(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	sh(t, repo, `git init -q -b main --object-format=sha256 .
echo a > a.txt && mkdir d && printf '\001\000' > d/b.bin && git add -A && git commit -qm base`)
	r := start(t, repo, "run-1")
	tr := addCopied(t, r, "agent")
	if got := sh(t, tr.Dir(), "git status --porcelain; git diff-files --name-only"); got != "" {
		t.Errorf("a fresh copy is not clean:\n%s", got)
	}
	sh(t, tr.Dir(), "echo b >> a.txt && rm d/b.bin")
	ch := capture(t, tr, Limits{})
	if len(ch.Files) != 2 || ch.Refused != "" || !strings.Contains(string(ch.Patch), "+b") {
		t.Errorf("change: %+v", ch)
	}
}
