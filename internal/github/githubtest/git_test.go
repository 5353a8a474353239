package githubtest

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

// Object ids computed with git itself (git hash-object, git mktree,
// git commit-tree) for the same content.
const (
	gitReadmeTree   = "3e6c15e46545c4ec692083bf0e99333b30ed8f3e" // README.md = "# octo-repo\n"
	gitReadmeAndAB  = "b784a7fb3433a96418f21c80bd5a0e066a0b2c3e" // + a/b.txt = "hi\n"
	gitBlobHi       = "45b983be36b73c0788dc9cbcb76cbb80fc7bb057" // "hi\n"
	gitFirstCommit  = "3fe21c36b960c66efbdaf2515aa56c9a66f41134" // tree gitReadmeTree, author A <a@example.com> 1700000000, "first"
	gitCFile        = "eb419bb6d84a1cb33305c7398c075ebc821e7c41" // c = "x", 100644
	gitCExecutable  = "3b78ffb8fb4c81551d805944d10dd5ad15e5f34e" // c = "x", 100755
	gitCommitAuthor = "A"
)

func blobEntry(path, content string) *gh.TreeEntry {
	return &gh.TreeEntry{Path: gh.String(path), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String(content)}
}

func deleteEntry(path string) *gh.TreeEntry {
	return &gh.TreeEntry{Path: gh.String(path), Mode: gh.String("100644"), Type: gh.String("blob")}
}

func TestObjectIDsAreGits(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()

	rc, _, err := c.Repositories.GetCommit(ctx, owner, name, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.GetCommit().GetTree().GetSHA(); got != gitReadmeTree {
		t.Errorf("seeded tree = %s, git says %s", got, gitReadmeTree)
	}
	blob, _, err := c.Git.CreateBlob(ctx, owner, name, &gh.Blob{Content: gh.String("hi\n"), Encoding: gh.String("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	if blob.GetSHA() != gitBlobHi {
		t.Errorf("blob = %s, git says %s", blob.GetSHA(), gitBlobHi)
	}
	date := gh.Timestamp{Time: time.Unix(1700000000, 0)}
	author := &gh.CommitAuthor{Name: gh.String(gitCommitAuthor), Email: gh.String("a@example.com"), Date: &date}
	commit, _, err := c.Git.CreateCommit(ctx, owner, name, &gh.Commit{
		Message: gh.String("first"), Tree: &gh.Tree{SHA: gh.String(gitReadmeTree)}, Author: author, Committer: author,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if commit.GetSHA() != gitFirstCommit {
		t.Errorf("commit = %s, git says %s", commit.GetSHA(), gitFirstCommit)
	}
	for _, tc := range []struct{ mode, want string }{{"100644", gitCFile}, {"100755", gitCExecutable}} {
		e := blobEntry("c", "x")
		e.Mode = gh.String(tc.mode)
		tree, _, err := c.Git.CreateTree(ctx, owner, name, "", []*gh.TreeEntry{e})
		if err != nil {
			t.Fatal(err)
		}
		if tree.GetSHA() != tc.want {
			t.Errorf("tree with mode %s = %s, git says %s", tc.mode, tree.GetSHA(), tc.want)
		}
	}
}

func TestCreateTree(t *testing.T) {
	tests := []struct {
		name    string
		base    bool
		entries []*gh.TreeEntry
		want    map[string]string // files of the resulting tree
		status  int               // expected error status, 0 for success
	}{
		{
			name:    "base_tree keeps other files; nested path",
			base:    true,
			entries: []*gh.TreeEntry{blobEntry("a/b.txt", "hi\n")},
			want:    map[string]string{"README.md": "# octo-repo\n", "a/b.txt": "hi\n"},
		},
		{
			name:    "without base_tree every other file is gone",
			entries: []*gh.TreeEntry{blobEntry("a/b.txt", "hi\n")},
			want:    map[string]string{"a/b.txt": "hi\n"},
		},
		{
			name:    "overwrite",
			base:    true,
			entries: []*gh.TreeEntry{blobEntry("README.md", "new\n")},
			want:    map[string]string{"README.md": "new\n"},
		},
		{
			name:    "sha null deletes a file",
			base:    true,
			entries: []*gh.TreeEntry{deleteEntry("README.md"), blobEntry("x", "y")},
			want:    map[string]string{"x": "y"},
		},
		{
			name:    "a file where a directory is needed is replaced",
			base:    true,
			entries: []*gh.TreeEntry{blobEntry("README.md/inner", "z")},
			want:    map[string]string{"README.md/inner": "z"},
		},
		{
			name:    "sha and content together",
			base:    true,
			entries: []*gh.TreeEntry{{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: gh.String(gitBlobHi), Content: gh.String("hi\n")}},
			status:  http.StatusUnprocessableEntity,
		},
		{
			name:    "unknown blob",
			base:    true,
			entries: []*gh.TreeEntry{{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: gh.String("0123456789012345678901234567890123456789")}},
			status:  http.StatusUnprocessableEntity,
		},
		{
			name:    "malformed path",
			base:    true,
			entries: []*gh.TreeEntry{blobEntry("a//b", "x")},
			status:  http.StatusUnprocessableEntity,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(t)
			c := newClient(t, s, "token")
			ctx := t.Context()
			tip := s.Head(DefaultRepo, "main")
			base := ""
			if tc.base {
				base = gitReadmeTree
			}
			tree, _, err := c.Git.CreateTree(ctx, owner, name, base, tc.entries)
			if tc.status != 0 {
				if statusOf(err) != tc.status {
					t.Fatalf("CreateTree error = %v, want status %d", err, tc.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			commit, _, err := c.Git.CreateCommit(ctx, owner, name, &gh.Commit{
				Message: gh.String("m"), Tree: tree, Parents: []*gh.Commit{{SHA: gh.String(tip)}},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Git.UpdateRef(ctx, owner, name, &gh.Reference{Ref: gh.String("refs/heads/main"), Object: &gh.GitObject{SHA: commit.SHA}}, false); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.Files(DefaultRepo, "main")); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateTreeRoundTrip(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	added, _, err := c.Git.CreateTree(ctx, owner, name, gitReadmeTree, []*gh.TreeEntry{blobEntry("a/b.txt", "hi\n")})
	if err != nil {
		t.Fatal(err)
	}
	if added.GetSHA() != gitReadmeAndAB {
		t.Errorf("tree = %s, git says %s", added.GetSHA(), gitReadmeAndAB)
	}
	removed, _, err := c.Git.CreateTree(ctx, owner, name, added.GetSHA(), []*gh.TreeEntry{deleteEntry("a/b.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if removed.GetSHA() != gitReadmeTree {
		t.Errorf("after deleting a/b.txt tree = %s, want the original %s (empty directories vanish)", removed.GetSHA(), gitReadmeTree)
	}
	full, _, err := c.Git.GetTree(ctx, owner, name, added.GetSHA(), true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range full.Entries {
		paths = append(paths, e.GetType()+" "+e.GetPath())
	}
	if diff := cmp.Diff([]string{"blob README.md", "tree a", "blob a/b.txt"}, paths); diff != "" {
		t.Errorf("recursive tree (-want +got):\n%s", diff)
	}
}

func TestRefsCompareAndSwap(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	base := s.Head(DefaultRepo, "main")
	ahead := s.Commit(DefaultRepo, "main", map[string]string{"x": "1"}, "ahead")
	// A sibling of ahead: same parent, not a descendant.
	tree, _, err := c.Git.CreateTree(ctx, owner, name, gitReadmeTree, []*gh.TreeEntry{blobEntry("y", "2")})
	if err != nil {
		t.Fatal(err)
	}
	sibling, _, err := c.Git.CreateCommit(ctx, owner, name, &gh.Commit{Message: gh.String("sibling"), Tree: tree, Parents: []*gh.Commit{{SHA: gh.String(base)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := func(name, sha string) *gh.Reference {
		return &gh.Reference{Ref: gh.String(name), Object: &gh.GitObject{SHA: gh.String(sha)}}
	}

	type outcome struct {
		Status  int
		Message string
	}
	steps := []struct {
		name string
		do   func() error
		want outcome
	}{
		{"non-fast-forward refused", func() error {
			_, _, err := c.Git.UpdateRef(ctx, owner, name, ref("refs/heads/main", sibling.GetSHA()), false)
			return err
		}, outcome{422, "Update is not a fast forward"}},
		{"same sha is a fast-forward", func() error {
			_, _, err := c.Git.UpdateRef(ctx, owner, name, ref("refs/heads/main", ahead), false)
			return err
		}, outcome{}},
		{"force moves anyway", func() error {
			_, _, err := c.Git.UpdateRef(ctx, owner, name, ref("refs/heads/main", sibling.GetSHA()), true)
			return err
		}, outcome{}},
		{"create existing refused", func() error {
			_, _, err := c.Git.CreateRef(ctx, owner, name, ref("refs/heads/main", ahead))
			return err
		}, outcome{422, "Reference already exists"}},
		{"create new branch", func() error {
			_, _, err := c.Git.CreateRef(ctx, owner, name, ref("refs/heads/feature/x", ahead))
			return err
		}, outcome{}},
		{"update of a missing ref refused", func() error {
			_, _, err := c.Git.UpdateRef(ctx, owner, name, ref("refs/heads/nope", ahead), false)
			return err
		}, outcome{422, "Reference does not exist"}},
		{"bad ref name refused", func() error {
			_, _, err := c.Git.CreateRef(ctx, owner, name, ref("main", ahead))
			return err
		}, outcome{422, "Reference name must start with 'refs/' and have at least two slashes."}},
	}
	for _, st := range steps {
		err := st.do()
		got := outcome{statusOf(err), messageOf(err)}
		if err != nil && got.Status == 0 {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	if got := s.Head(DefaultRepo, "main"); got != sibling.GetSHA() {
		t.Errorf("main = %s, want the forced %s", got, sibling.GetSHA())
	}
	r, _, err := c.Git.GetRef(ctx, owner, name, "heads/feature/x")
	if err != nil {
		t.Fatal(err)
	}
	if r.GetObject().GetSHA() != ahead {
		t.Errorf("feature/x = %s, want %s", r.GetObject().GetSHA(), ahead)
	}
}

func TestEmptyRepository(t *testing.T) {
	s := NewServer(t, WithRepo("o/empty", "trunk"))
	c := newClient(t, s, "token")
	ctx := t.Context()

	_, _, err := c.Repositories.GetCommit(ctx, "o", "empty", "heads/trunk", nil)
	if statusOf(err) != http.StatusConflict || messageOf(err) != "Git Repository is empty." {
		t.Errorf("GetCommit on an empty repository: %v, want 409 Git Repository is empty.", err)
	}
	_, _, err = c.Git.CreateTree(ctx, "o", "empty", "", []*gh.TreeEntry{blobEntry("x", "y")})
	if statusOf(err) != http.StatusConflict {
		t.Errorf("CreateTree on an empty repository: %v, want 409", err)
	}
	_, _, _, err = c.Repositories.GetContents(ctx, "o", "empty", "x", nil)
	if statusOf(err) != http.StatusNotFound {
		t.Errorf("GetContents on an empty repository: %v, want 404", err)
	}
	repo, _, err := c.Repositories.Get(ctx, "o", "empty")
	if err != nil || repo.GetDefaultBranch() != "trunk" {
		t.Errorf("Get = %v, %v; want default branch trunk", repo.GetDefaultBranch(), err)
	}

	put, _, err := c.Repositories.CreateFile(ctx, "o", "empty", ".optr/ledger.jsonl", &gh.RepositoryContentFileOptions{
		Message: gh.String("start"), Content: []byte{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Head("o/empty", "trunk"); got != put.Commit.GetSHA() || got == "" {
		t.Errorf("trunk = %q, want the contents API's commit %q", got, put.Commit.GetSHA())
	}
	if diff := cmp.Diff(map[string]string{".optr/ledger.jsonl": ""}, s.Files("o/empty", "trunk")); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	_, _, err = c.Repositories.CreateFile(ctx, "o", "empty", ".optr/ledger.jsonl", &gh.RepositoryContentFileOptions{
		Message: gh.String("again"), Content: []byte("x"),
	})
	if statusOf(err) != http.StatusUnprocessableEntity {
		t.Errorf("creating an existing file without sha: %v, want 422", err)
	}
}
