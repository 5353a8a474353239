package worktree

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitDirState lists every file and directory of the workspace's .git with
// its mode, size and modification time, except the paths keep allows to
// change: what optr must leave as it was.
func gitDirState(t *testing.T, repo string, keep func(rel string) bool) []string {
	t.Helper()
	gitDir := filepath.Join(repo, ".git")
	var state []string
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gitDir, p)
		if keep != nil && keep(filepath.ToSlash(rel)) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		state = append(state, fmt.Sprintf("%s %v %d %d", rel, info.Mode(), info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// diffState says what differs between two gitDirState lists.
func diffState(before, after []string) string {
	var d []string
	for _, s := range after {
		if !slices.Contains(before, s) {
			d = append(d, "+ "+s)
		}
	}
	for _, s := range before {
		if !slices.Contains(after, s) {
			d = append(d, "- "+s)
		}
	}
	return strings.Join(d, "\n")
}

// Everything optr does before it applies π*'s patch — Start, a tree per
// agent (written from the snapshot, or checked out by git), the agents'
// captures, a reset, Close — writes nothing in the workspace's .git: not
// an object, a ref, the index, a worktree entry or a lock, and leaves its
// working tree as it was.
func TestNothingWrittenInTheWorkspace(t *testing.T) {
	t.Parallel()
	for _, snapshotBytes := range []int64{0, -1} {
		t.Run(fmt.Sprint("snapshot=", snapshotBytes), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t, map[string]string{"a.txt": "a\n", "dir/b.bin": "b\x00\n"})
			sh(t, repo, "echo dirty >> a.txt && echo untracked > u.txt")
			status := sh(t, repo, "git status --porcelain") // which refreshes the index first
			before := gitDirState(t, repo, nil)
			r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "run-1", SnapshotBytes: snapshotBytes})
			if err != nil {
				t.Fatal(err)
			}
			for _, agent := range []string{"one", "two"} {
				tr := add(t, r, agent)
				sh(t, tr.Dir(), "echo "+agent+" >> a.txt && echo new > new.txt && rm dir/b.bin && git add -A && git -c user.name=x -c user.email=x@x commit -qm x")
				if ch := capture(t, tr, Limits{}); ch.Refused != "" || len(ch.Files) != 3 {
					t.Fatalf("capture of %s: refused %q, %d files", agent, ch.Refused, len(ch.Files))
				}
				if err := tr.Reset(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			if d := diffState(before, gitDirState(t, repo, nil)); d != "" {
				t.Errorf("the workspace's .git changed:\n%s", d)
			}
			if got := sh(t, repo, "git status --porcelain"); got != status {
				t.Errorf("the workspace's status changed: %q, was %q", got, status)
			}
		})
	}
}

// Applying π*'s patch touches only π*'s files: the user's staged,
// unstaged and untracked work on other files stays as it was, and of the
// workspace's .git only the index and the objects of the new content
// change (git apply --index); its configuration, hooks and refs do not.
func TestApplyTouchesOnlyItsFiles(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), "echo agent >> a.txt && echo new > new.txt")
	ch := capture(t, tr, Limits{})
	sh(t, repo, "echo staged >> b.txt && git add b.txt && echo unstaged >> c.txt && echo untracked > u.txt && git status --porcelain")
	// "." too: the directory's time changes as index.lock is renamed over
	// the index.
	keep := func(rel string) bool {
		return rel == "." || rel == "index" || rel == "objects" || strings.HasPrefix(rel, "objects/")
	}
	before := gitDirState(t, repo, keep)
	if err := Apply(t.Context(), "", repo, ch.Patch); err != nil {
		t.Fatal(err)
	}
	if d := diffState(before, gitDirState(t, repo, keep)); d != "" {
		t.Errorf("applying changed the workspace's .git beyond its index and objects:\n%s", d)
	}
	want := "M  a.txt\nM  b.txt\n M c.txt\nA  new.txt\n?? u.txt"
	if got := sh(t, repo, "git status --porcelain"); got != want {
		t.Errorf("the workspace after apply:\n%s\nwant\n%s", got, want)
	}
	if got := sh(t, repo, "cat a.txt b.txt c.txt u.txt; git show :b.txt"); got != "a\nagent\nb\nstaged\nc\nunstaged\nuntracked\nb\nstaged" {
		t.Errorf("the files after apply:\n%s", got)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "new.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("new.txt = %q, %v", b, err)
	}
}
