package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitMade adds agent's worktree in a run of its own that never copies:
// git worktree add checks it out, the tree to compare the run's with.
func gitMade(t *testing.T, repo, agent string) *Tree {
	t.Helper()
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "by-git", SnapshotBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(t.Context()) })
	tr := add(t, r, agent)
	if tr.copied {
		t.Fatal("SnapshotBytes -1 still copied the worktree")
	}
	return tr
}

// sameAsGit fails the test unless tr holds what git's own checkout of the
// same commit holds: the files with their modes and contents, the index
// entries; and it is clean to git, stat data trusted.
func sameAsGit(t *testing.T, repo string, tr *Tree) {
	t.Helper()
	want := gitMade(t, repo, tr.Agent())
	if diff := cmp.Diff(treeFiles(t, want.Dir()), treeFiles(t, tr.Dir())); diff != "" {
		t.Errorf("files (-git's checkout +optr's):\n%s", diff)
	}
	if diff := cmp.Diff(sh(t, want.Dir(), "git ls-files -s"), sh(t, tr.Dir(), "git ls-files -s")); diff != "" {
		t.Errorf("index entries (-git's checkout +optr's):\n%s", diff)
	}
	if got := sh(t, tr.Dir(), "git status --porcelain --untracked-files=all --ignore-submodules=none; git diff-files --name-only"); got != "" {
		t.Errorf("the tree is not clean:\n%s", got)
	}
}

// Where git's checkout converts nothing, even the run's first worktree is
// written from the object store, and it is the checkout git makes: text,
// binary, executable, symlink and gitlink entries, paths in index order.
func TestFirstTreeFromObjectsIsGitsCheckout(t *testing.T) {
	t.Parallel()
	repo := richRepo(t)
	r := start(t, repo, "run-1")
	first := add(t, r, "first")
	if !first.copied {
		t.Fatal("the first tree was checked out by git, not written from the object store")
	}
	sameAsGit(t, repo, first)
	sameAsGit(t, repo, addCopied(t, r, "second"))
	if _, err := os.Stat(r.scratchIndex()); !os.IsNotExist(err) {
		t.Errorf("the temporary index is left: %v", err)
	}
	sh(t, repo, "git fsck --no-progress --no-dangling 2>&1")
}

// Whatever makes git's checkout differ from the blobs — an attribute from
// any source, a setting — leaves the first checkout to git, and every tree
// still holds exactly what git writes; attributes that change nothing at
// checkout do not.
func TestFirstTreeLeavesConversionsToGit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, setup string
		byGit       bool
	}{
		{"eol=crlf in .gitattributes", `printf '*.txt eol=crlf\n' > .gitattributes`, true},
		{"eol=crlf in a nested .gitattributes", `printf '*.txt eol=crlf\n' > dir/.gitattributes`, true},
		{"a smudge filter", `printf 'a.txt filter=up\n' > .gitattributes && git config filter.up.smudge 'tr a-z A-Z' && git config filter.up.clean cat`, true},
		{"ident", `printf 'a.txt ident\n' > .gitattributes && printf '$Id$\n' > a.txt`, true},
		{"working-tree-encoding", `printf 'a.txt working-tree-encoding=ISO-8859-1\n' > .gitattributes && printf 'caf\351\n' > a.txt`, true},
		{"eol=crlf in info/attributes", `mkdir -p .git/info && printf '*.txt eol=crlf\n' > .git/info/attributes`, true},
		{"core.autocrlf", `git config core.autocrlf true`, true},
		{"core.eol crlf with text=auto", `printf '* text=auto\n' > .gitattributes && git config core.eol crlf`, true},
		{"core.symlinks false", `git config core.symlinks false`, true},
		{"attributes that convert nothing", `printf '* text=auto\n*.bin binary\n*.txt eol=lf diff\n' > .gitattributes`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t, map[string]string{"a.txt": "alpha\nbeta\n", "dir/b.txt": "b\n", "c.go": "package c\n"})
			sh(t, repo, `ln -s a.txt link && `+tc.setup+` && git add -A && git commit -qm setup && git rm -q --cached -r . && git reset -q --hard`)
			r := start(t, repo, "run-1")
			first := add(t, r, "first")
			if first.copied == tc.byGit {
				t.Errorf("the first tree copied = %v, want %v", first.copied, !tc.byGit)
			}
			sameAsGit(t, repo, first)
			sameAsGit(t, repo, add(t, r, "second"))
		})
	}
}

// A commit whose tree holds a path git refuses to check out (here
// .git/config, made with git mktree) is not written from the object
// store: git refuses it, and nothing lands in the worktree's .git.
func TestFirstTreeRefusesWhatGitRefuses(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	sh(t, repo, `blob=$(git hash-object -w a.txt)
sub=$(printf '100644 blob %s\tconfig\n' $blob | git mktree)
top=$(printf '100644 blob %s\ta.txt\n040000 tree %s\t.git\n' $blob $sub | git mktree)
git update-ref HEAD $(git commit-tree -m evil $top)`)
	r := start(t, repo, "run-1")
	_, err := r.Add(t.Context(), "agent")
	if err == nil || !strings.Contains(err.Error(), "invalid path") {
		t.Fatalf("Add = %v, want git's refusal of the path", err)
	}
	if cfg, err := os.ReadFile(filepath.Join(r.dir, "agent", ".git", "config")); err == nil {
		t.Errorf("the tree's .git/config was written: %q", cfg)
	}
}
