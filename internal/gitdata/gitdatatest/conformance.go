package gitdatatest

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/gitdata"
)

// Seeded is a store a test can give content and look into: a Repo, or the
// fake GitHub behind a client.
type Seeded interface {
	gitdata.Store
	// Commit commits files on branch, on its tip (see Repo.Commit).
	Commit(branch string, files map[string]string, message string) string
	// Head is the commit branch points at, "" when it does not exist.
	Head(branch string) string
	// Files are the files at the tip of branch.
	Files(branch string) map[string]string
}

// TestStore checks that a store answers as GitHub's Git Data API does
// where commit-back depends on it: the tip and its parent, a file or a
// directory at a commit, trees kept from their base, fast-forwards only,
// and the errors of a moved branch, a missing one and an empty
// repository. full returns a fresh repository whose default branch main
// holds README.md; empty, one without commits. Run on the in-memory Repo
// and on *github.Client over the fake GitHub, it shows they agree.
func TestStore(t *testing.T, full, empty func(t *testing.T) Seeded) {
	t.Run("reads", func(t *testing.T) { testReads(t, full(t)) })
	t.Run("writes", func(t *testing.T) { testWrites(t, full(t)) })
	t.Run("compare-and-swap", func(t *testing.T) { testSwap(t, full(t)) })
	t.Run("empty repository", func(t *testing.T) { testEmpty(t, empty(t)) })
}

func testReads(t *testing.T, s Seeded) {
	ctx := t.Context()
	first := s.Head("main")
	second := s.Commit("main", map[string]string{"d/a.txt": "a\n"}, "second")
	tip, err := s.ReadTip(ctx, "main")
	if err != nil || tip.SHA != second || tip.Parent != first || tip.Message != "second" || tip.Tree == "" {
		t.Fatalf("ReadTip = %+v, %v; want %s on %s", tip, err, second, first)
	}
	if c, err := s.ReadCommit(ctx, second); err != nil || c != tip {
		t.Errorf("ReadCommit = %+v, %v; want %+v", c, err, tip)
	}
	if _, err := s.ReadTip(ctx, "none"); !errors.Is(err, gitdata.ErrNoBranch) {
		t.Errorf("ReadTip(missing) = %v, want ErrNoBranch", err)
	}
	if got, err := s.ReadFileAt(ctx, tip.SHA, "d/a.txt"); err != nil || string(got) != "a\n" {
		t.Errorf("ReadFileAt = %q, %v", got, err)
	}
	if got, err := s.ReadFileAt(ctx, "heads/main", "d/a.txt"); err != nil || string(got) != "a\n" {
		t.Errorf("ReadFileAt(heads/main) = %q, %v", got, err)
	}
	if got, err := s.ReadFileAt(ctx, first, "d/a.txt"); err != nil || got != nil {
		t.Errorf("ReadFileAt at the parent = %q, %v; want nil, nil", got, err)
	}
	if _, err := s.ReadFileAt(ctx, tip.SHA, "d"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("ReadFileAt(a directory) = %v, want an error saying so", err)
	}
	list, err := s.ListDir(ctx, tip.SHA, "d")
	if err != nil || len(list) != 1 || list[0].Name != "a.txt" || list[0].SHA != gitdata.BlobSHA([]byte("a\n")) {
		t.Errorf("ListDir = %+v, %v; want a.txt by its blob sha", list, err)
	}
	if list, err := s.ListDir(ctx, tip.SHA, "none"); err != nil || list != nil {
		t.Errorf("ListDir(missing) = %+v, %v; want nil, nil", list, err)
	}
}

func testWrites(t *testing.T, s Seeded) {
	ctx := t.Context()
	tip, err := s.ReadTip(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	binary := []byte{0xff, 0, 'x'}
	blob, err := s.CreateBlob(ctx, int64(len(binary)), func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(binary)), nil })
	if err != nil || blob != gitdata.BlobSHA(binary) {
		t.Fatalf("CreateBlob = %s, %v; want the git blob sha %s", blob, err, gitdata.BlobSHA(binary))
	}
	if _, err := s.CreateBlob(ctx, 10, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("short")), nil }); err == nil {
		t.Error("a source shorter than its size was stored")
	}
	tree, err := s.CreateTree(ctx, tip.Tree, []gitdata.TreeEntry{{Path: "d/b.txt", Content: []byte("b\n")}, {Path: "bin", SHA: blob}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.CreateTree(ctx, tip.Tree, []gitdata.TreeEntry{{Path: "bin", SHA: blob}, {Path: "d/b.txt", SHA: gitdata.BlobSHA([]byte("b\n"))}})
	if err != nil || again != tree {
		t.Errorf("the same tree by blob shas = %s, %v; want %s", again, err, tree)
	}
	if same, err := s.CreateTree(ctx, tip.Tree, nil); err != nil || same != tip.Tree {
		t.Errorf("a tree with nothing written = %s, %v; want the base %s", same, err, tip.Tree)
	}
	if _, err := s.CreateTree(ctx, tip.Tree, []gitdata.TreeEntry{{Path: "x", SHA: strings.Repeat("0", 40)}}); err == nil {
		t.Error("a tree naming a blob that does not exist was created")
	}
	commit, err := s.CreateCommit(ctx, gitdata.NewCommit{Message: "third", Tree: tree, Parent: tip.SHA, Author: gitdata.Author{Name: "optr", Email: "optr@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Head("main") != tip.SHA {
		t.Error("CreateCommit moved the branch")
	}
	if err := s.UpdateRef(ctx, "main", commit); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"README.md": "# octo-repo\n", "d/b.txt": "b\n", "bin": string(binary)}
	if got := s.Files("main"); !maps.Equal(want, got) {
		t.Errorf("files = %q, want %q: a tree keeps its base", got, want)
	}
	root, err := s.CreateTree(ctx, "", []gitdata.TreeEntry{{Path: "only", Content: []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := s.CreateCommit(ctx, gitdata.NewCommit{Message: "root", Tree: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRef(ctx, "orphan", orphan); err != nil {
		t.Fatal(err)
	}
	if got := s.Files("orphan"); !maps.Equal(map[string]string{"only": "1"}, got) {
		t.Errorf("an orphan's files = %q, want only its own", got)
	}
	if c, err := s.ReadTip(ctx, "orphan"); err != nil || c.Parent != "" {
		t.Errorf("ReadTip(orphan) = %+v, %v; want a root commit", c, err)
	}
}

func testSwap(t *testing.T, s Seeded) {
	ctx := t.Context()
	old := s.Head("main")
	moved := s.Commit("main", map[string]string{"x": "moved"}, "moved")
	if err := s.UpdateRef(ctx, "main", old); !errors.Is(err, gitdata.ErrMoved) {
		t.Errorf("UpdateRef to an ancestor = %v, want ErrMoved", err)
	}
	if err := s.CreateRef(ctx, "main", old); !errors.Is(err, gitdata.ErrMoved) {
		t.Errorf("CreateRef of an existing branch = %v, want ErrMoved", err)
	}
	if err := s.UpdateRef(ctx, "gone", moved); !errors.Is(err, gitdata.ErrMoved) {
		t.Errorf("UpdateRef of a missing branch = %v, want ErrMoved", err)
	}
	if s.Head("main") != moved {
		t.Error("a refused update moved the branch")
	}
}

func testEmpty(t *testing.T, s Seeded) {
	ctx := t.Context()
	if _, err := s.ReadTip(ctx, "main"); !errors.Is(err, gitdata.ErrEmptyRepository) {
		t.Errorf("ReadTip in an empty repository = %v, want ErrEmptyRepository", err)
	}
	if _, err := s.CreateTree(ctx, "", []gitdata.TreeEntry{{Path: "a", Content: []byte("a")}}); !errors.Is(err, gitdata.ErrEmptyRepository) {
		t.Errorf("CreateTree in an empty repository = %v, want ErrEmptyRepository", err)
	}
	if got, err := s.ReadFileAt(ctx, "heads/main", "l.jsonl"); err != nil || got != nil {
		t.Errorf("ReadFileAt in an empty repository = %q, %v; want nil, nil", got, err)
	}
	if err := s.CreateFile(ctx, "l.jsonl", "start", nil, gitdata.Author{}); err != nil {
		t.Fatal(err)
	}
	if got := s.Files("main"); !maps.Equal(map[string]string{"l.jsonl": ""}, got) {
		t.Errorf("files after CreateFile = %q, want the empty file on the default branch", got)
	}
	if err := s.CreateFile(ctx, "l.jsonl", "start", nil, gitdata.Author{}); !errors.Is(err, gitdata.ErrMoved) {
		t.Errorf("CreateFile of an existing file = %v, want ErrMoved", err)
	}
}
