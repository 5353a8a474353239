package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Discard takes every worktree away at once (their directories are gone
// when it returns, git lists none) and deletes their files in the
// background: while the deletion is held back, Discard has returned and
// the trees wait in the trash. Once Wait returns, nothing of the run is
// left under the root, lock included. Close after Discard has nothing left
// to do.
func TestDiscardDeletesInTheBackground(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	r := start(t, repo, "run-1")
	hold := make(chan struct{})
	r.trash.hold = hold
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release) // before start's Close, which waits for the deletion
	root := r.root
	trees := []*Tree{add(t, r, "first"), addWritten(t, r, "second"), addWritten(t, r, "third")}
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
		t.Errorf("the workspace lists worktrees (worktrees listed, directories):\n%s", got)
	}
	if got := sh(t, filepath.Join(r.dir, trashDir), "ls -A; cat */deep/er/x"); got != "1-third\n2-first\n3-second\nx" && got != "1-third\n2-second\n3-first\nx" {
		t.Errorf("the trash while its deletion is held back (ls, the second tree's file):\n%s", got)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Wait(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait while the deletion is held back = %v, want it to stop at the context's end", err)
	}
	release()
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
	sh(t, addWritten(t, r, "second").Dir(), "mkdir -p deep/er && echo x > deep/er/x")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left under the root after Close: %v", left)
	}
}

// Trees are written in a repository whose objects are SHA-256 too: the
// index carries 32-byte ids and a SHA-256 checksum, the tree's repository
// says its object format.
func TestWrittenSHA256Repository(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	sh(t, repo, `git init -q -b main --object-format=sha256 .
echo a > a.txt && mkdir d && printf '\001\000' > d/b.bin && git add -A && git commit -qm base`)
	r := start(t, repo, "run-1")
	tr := addWritten(t, r, "agent")
	if got := sh(t, tr.Dir(), "git status --porcelain; git diff-files --name-only"); got != "" {
		t.Errorf("a fresh copy is not clean:\n%s", got)
	}
	sh(t, tr.Dir(), "echo b >> a.txt && rm d/b.bin")
	ch := capture(t, tr, Limits{})
	if len(ch.Files) != 2 || ch.Refused != "" || !strings.Contains(string(ch.Patch), "+b") {
		t.Errorf("change: %+v", ch)
	}
}
