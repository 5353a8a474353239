package worktree

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// richRepo is a repository with what a checkout can hold: text, binary,
// executable, nested, ignored-pattern, symlink and gitlink entries.
func richRepo(t *testing.T) string {
	t.Helper()
	repo := newRepo(t, map[string]string{
		"a.txt": "alpha\n", "b.txt": "bravo\n", "tool.sh": "#!/bin/sh\necho hi\n",
		"dir/x.txt": "x\n", "dir/deep/y.txt": "y\n", ".gitignore": "*.log\n",
		"a.b/c.txt": "sorts before a/ in the index\n",
	})
	sh(t, repo, `printf '\000\001\377bin' > img.bin && chmod +x tool.sh && ln -s a.txt link
git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,sub
git add -A && git commit -qm more`)
	return repo
}

// A tree written from the snapshot is the checkout git would make: the
// same index entries, the same files and modes as a tree git checked out,
// clean to git status in the agent's own repository, and with stat data
// git trusts (git diff-files, which compares stat data only, reports
// nothing: neither the agent's git nor capture re-reads every file). Its
// repository is its own: detached at the base, its objects borrowed, no
// remote, no hook, nothing of the workspace's configuration.
func TestWrittenTreeIsGitsCheckout(t *testing.T) {
	t.Parallel()
	repo := richRepo(t)
	sh(t, repo, `git config remote.origin.url https://example.com/r.git && git config core.hooksPath hooks && git config user.name Workspace`)
	r := start(t, repo, "run-1")
	tr := addWritten(t, r, "agent")
	byGit := addByGit(t, repo)
	if got := sh(t, tr.Dir(), "git status --porcelain --untracked-files=all --ignore-submodules=none; git diff-files --name-only"); got != "" {
		t.Errorf("a fresh tree is not clean:\n%s", got)
	}
	if diff := cmp.Diff(sh(t, byGit.Dir(), "git ls-files -s"), sh(t, tr.Dir(), "git ls-files -s")); diff != "" {
		t.Errorf("index entries (-git +written):\n%s", diff)
	}
	if got := sh(t, tr.Dir(), "git rev-parse HEAD; git symbolic-ref -q HEAD || echo detached; git rev-parse --absolute-git-dir"); got != r.Base()+"\ndetached\n"+filepath.Join(tr.Dir(), ".git") {
		t.Errorf("HEAD and git directory of the tree: %q", got)
	}
	if got := sh(t, tr.Dir(), "git config --list --local; ls .git/hooks 2>&1 || true"); strings.Contains(got, "origin") || strings.Contains(got, "hooksPath") || strings.Contains(got, "Workspace") || !strings.Contains(got, "No such file") {
		t.Errorf("the tree's repository has the workspace's configuration or hooks:\n%s", got)
	}
	if diff := cmp.Diff(treeFiles(t, byGit.Dir()), treeFiles(t, tr.Dir())); diff != "" {
		t.Errorf("files (-git +written):\n%s", diff)
	}
	sh(t, tr.Dir(), "git fsck --no-progress --no-dangling 2>&1")
}

// addByGit adds a tree to a run of its own on repo whose trees git checks
// out (no snapshot in memory).
func addByGit(t testing.TB, repo string) *Tree {
	t.Helper()
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "git", SnapshotBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.WithoutCancel(t.Context())) })
	tr := add(t, r, "agent")
	if r.snap.written {
		t.Fatal("SnapshotBytes -1 still wrote the tree")
	}
	return tr
}

// treeFiles lists a worktree's entries (but .git) with mode and content.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		content := ""
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			content, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			content = string(b)
		}
		files[rel] = fi.Mode().String() + " " + content
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Whatever an agent does, a written tree captures exactly the change a
// tree git checked out captures, and that is what git add --all stages in
// the agent's own repository.
func TestWrittenCapturesLikeGit(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, script string }{
		{"same-size edit in place", `printf 'ALPHA\n' > a.txt`},
		{"append", `echo more >> b.txt`},
		{"mode changes", `chmod +x b.txt && chmod -x tool.sh`},
		{"deletions", `rm a.txt dir/deep/y.txt`},
		{"new files, an ignored one", `mkdir -p n/m && echo new > n/m/new.txt && echo log > x.log`},
		{"binary files", `printf '\000\001\002' > img.bin && printf '\377\000' > new.bin`},
		{"rename", `mv dir/x.txt dir/z.txt`},
		{"odd names", `printf 't\n' > "$(printf 'tab\there.txt')" && echo u > "ünï code.txt" && echo q > 'quote".txt' && mv a.txt ':colon.txt'`},
		{"file to directory", `rm a.txt && mkdir a.txt && echo in > a.txt/inner`},
		{"directory to file", `rm -r dir && echo flat > dir`},
		{"file to symlink", `rm b.txt && ln -s a.txt b.txt`},
		{"symlink to file", `rm link && echo plain > link`},
		{"staged, edited, unstaged", `echo s > s.txt && git add s.txt && echo t >> s.txt && git rm -q --cached a.txt`},
		{"commits on a branch", `git checkout -q -b "mine-$$" && echo c > c.txt && git add c.txt && git commit -qm c && echo d >> b.txt`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := richRepo(t)
			gitTree := addByGit(t, repo)
			r := start(t, repo, "copy")
			copyTree := addWritten(t, r, "agent")

			var changes []Change
			for _, tr := range []*Tree{gitTree, copyTree} {
				sh(t, tr.Dir(), tc.script)
				changes = append(changes, capture(t, tr, Limits{}))
			}
			if diff := cmp.Diff(changes[0], changes[1]); diff != "" {
				t.Errorf("change (-git +copy):\n%s", diff)
			}
			if !bytes.Equal(changes[0].Patch, changes[1].Patch) {
				t.Errorf("patches differ:\n%s\n----\n%s", changes[0].Patch, changes[1].Patch)
			}
			if changes[1].Refused != "" {
				return
			}
			want := sh(t, copyTree.Dir(), "git add --all && git diff --cached --no-renames --no-ext-diff --no-textconv --no-color --full-index --src-prefix=a/ --dst-prefix=b/ --binary "+r.Base())
			if got := strings.TrimSpace(string(changes[1].Patch)); got != want {
				t.Errorf("the captured patch is not what git add --all stages:\n%s\n----\n%s", got, want)
			}
		})
	}
}

// A file an agent rewrites with content of the same size right after its
// worktree was written, in the same clock tick as far as the file system
// can tell, is still captured: the index is written after the files, so
// git compares such racy entries by content.
func TestCopyCapturesAnImmediateEdit(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "alpha\n"})
	r := start(t, repo, "run-1")
	for _, agent := range []string{"a1", "a2", "a3", "a4", "a5"} {
		tr := addWritten(t, r, agent)
		if err := os.WriteFile(filepath.Join(tr.Dir(), "a.txt"), []byte("ALPHA\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ch := capture(t, tr, Limits{})
		if len(ch.Files) != 1 || ch.Files[0].Path != "a.txt" || !strings.Contains(string(ch.Patch), "+ALPHA") {
			t.Errorf("%s: the edit was not captured: %+v", agent, ch)
		}
	}
}

// An agent that edits files of its tree in place (writing into the
// existing file, changing its mode, truncating it) changes nothing in
// another agent's tree or in the workspace: no file is shared with them.
func TestWrittenIsIsolated(t *testing.T) {
	t.Parallel()
	repo := richRepo(t)
	r := start(t, repo, "run-1")
	a, b, c := addWritten(t, r, "a"), addWritten(t, r, "b"), addWritten(t, r, "c")
	before := map[string]map[string]string{}
	others := map[string]string{"c": c.Dir(), "b": b.Dir(), "workspace": repo}
	for name, dir := range others {
		before[name] = treeFiles(t, dir)
	}
	for rel := range treeFiles(t, a.Dir()) {
		fa, errA := os.Lstat(filepath.Join(a.Dir(), rel))
		for name, dir := range others {
			fo, errO := os.Lstat(filepath.Join(dir, rel))
			if errA == nil && errO == nil && fa.Mode().IsRegular() && os.SameFile(fa, fo) {
				t.Errorf("%s is the same file in the copy and in %s", rel, name)
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(a.Dir(), "a.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("ALP"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sh(t, a.Dir(), "chmod 600 b.txt && : > dir/x.txt && chmod -x tool.sh")
	for name, dir := range others {
		if diff := cmp.Diff(before[name], treeFiles(t, dir)); diff != "" {
			t.Errorf("%s changed (-before +after):\n%s", name, diff)
		}
	}
	if ch := capture(t, a, Limits{}); len(ch.Files) != 3 {
		t.Errorf("the copy's change: %+v", ch.Files)
	}
}

// A tree larger than SnapshotBytes is not kept in memory: every tree is
// checked out by git, and works the same.
func TestSnapshotLimit(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": strings.Repeat("a", 100)})
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r", SnapshotBytes: 99})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(t.Context())
	add(t, r, "first")
	tr := add(t, r, "second")
	if r.snap.written || r.snap.entries[0].data != nil {
		t.Fatal("a tree over the limit was written from memory")
	}
	sh(t, tr.Dir(), "echo b > b.txt")
	if ch := capture(t, tr, Limits{}); len(ch.Files) != 1 {
		t.Errorf("change: %+v", ch)
	}
}

// Reset puts a written tree back to the base too.
func TestResetWritten(t *testing.T) {
	t.Parallel()
	repo := richRepo(t)
	r := start(t, repo, "run-1")
	tr := addWritten(t, r, "agent")
	sh(t, tr.Dir(), "echo changed > a.txt && rm b.txt && echo new > new.txt && chmod -x tool.sh")
	if err := tr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ch := capture(t, tr, Limits{}); ch.Refused != "" || len(ch.Files) != 0 {
		t.Errorf("after Reset: %+v", ch)
	}
	if diff := cmp.Diff(treeFiles(t, addByGit(t, repo).Dir()), treeFiles(t, tr.Dir())); diff != "" {
		t.Errorf("files after Reset (-git +written):\n%s", diff)
	}
}

// No entry of a written tree, or of one git checked out, is "racily
// clean" (as new as the index, to the second): git trusts every entry's
// stat data instead of reading every file again at the first git status,
// even a git built without nanosecond timestamps and a tree written
// within one second.
func TestNoRacyEntries(t *testing.T) {
	t.Parallel()
	repo := richRepo(t)
	for _, tr := range []*Tree{addWritten(t, start(t, repo, "run-1"), "agent"), addByGit(t, repo)} {
		idx, err := os.Stat(filepath.Join(tr.Dir(), ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		for rel := range treeFiles(t, tr.Dir()) {
			fi, err := os.Lstat(filepath.Join(tr.Dir(), rel))
			if err != nil {
				t.Fatal(err)
			}
			if !fi.IsDir() && fi.ModTime().Unix() >= idx.ModTime().Unix() {
				t.Errorf("%s: %s was modified at %s, the index at %s: racily clean", tr.Agent(), rel, fi.ModTime(), idx.ModTime())
			}
		}
		if got := sh(t, tr.Dir(), "git status --porcelain --untracked-files=all; git diff-files --name-only"); got != "" {
			t.Errorf("%s is not clean:\n%s", tr.Agent(), got)
		}
	}
}

// manyBlobs is a repository of n files of distinct content, enough for
// the snapshot to be read by several git cat-file processes.
func manyBlobs(t *testing.T, n int) (string, map[string]string) {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("d%d/f%04d.txt", i%7, i)] = fmt.Sprintf("file %d\n%s\n", i, strings.Repeat("x", i%50))
	}
	return newRepo(t, files), files
}

// A snapshot read in parts (one git cat-file per core) holds every
// file's content: each tree written from it is the base, file by file.
func TestSnapshotInParts(t *testing.T) {
	t.Parallel()
	repo, files := manyBlobs(t, 2400)
	r := start(t, repo, "run-1")
	tr := addWritten(t, r, "agent")
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(tr.Dir(), filepath.FromSlash(p)))
		if err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v; want %q", p, got, err, want)
		}
	}
	if st := sh(t, tr.Dir(), "git status --porcelain"); st != "" {
		t.Errorf("the written tree is not clean:\n%s", st)
	}
}

// A snapshot over the limit in one of its parts is dropped whole, and
// git checks every tree out.
func TestSnapshotInPartsOverTheLimit(t *testing.T) {
	t.Parallel()
	repo, files := manyBlobs(t, 2400)
	var total int64
	for _, c := range files {
		total += int64(len(c))
	}
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r", SnapshotBytes: total - 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(t.Context())
	tr := add(t, r, "agent")
	if r.snap.written {
		t.Fatal("a tree over the limit was written from memory")
	}
	for i, e := range r.snap.entries {
		if e.data != nil {
			t.Fatalf("entry %d (%s) kept its content", i, e.path)
		}
	}
	if got, err := os.ReadFile(filepath.Join(tr.Dir(), "d5/f2399.txt")); err != nil || string(got) != files["d5/f2399.txt"] {
		t.Errorf("d5/f2399.txt = %q, %v", got, err)
	}
}
