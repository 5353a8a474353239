package github

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

const opCreatePull = "POST /repos/{owner}/{repo}/pulls"

// writes lists the operations of the requests that changed something.
func writes(s *githubtest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method != http.MethodGet && !r.Fault {
			out = append(out, r.Operation)
		}
	}
	return out
}

// PushChange writes one blob per file, one tree, one commit and a new
// branch; the base branch does not move.
func TestPushChange(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	base := s.Commit(repo, "main", map[string]string{"src/a.go": "package a\n", "old.txt": "old\n"}, "base")
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()

	tip, err := c.BranchTip(ctx, "")
	if err != nil || tip.Commit != base {
		t.Fatalf("BranchTip = %+v, %v; want commit %s", tip, err, base)
	}
	pre, err := c.ReadFiles(ctx, tip, []string{"src/a.go", "old.txt", "missing/x", "src/none"})
	if err != nil {
		t.Fatal(err)
	}
	wantPre := []File{{Path: "src/a.go", Mode: "100644", Content: []byte("package a\n")}, {Path: "old.txt", Mode: "100644", Content: []byte("old\n")}}
	if diff := cmp.Diff(wantPre, pre); diff != "" {
		t.Errorf("ReadFiles (-want +got):\n%s", diff)
	}

	s.ResetRequests()
	commit, err := c.PushChange(ctx, ChangeRequest{
		Tip: tip, Branch: "optr/issue-7/run-1", Message: "optr: change",
		Files: []File{
			{Path: "src/a.go", Mode: "100644", Content: []byte("package a\n\nfunc A() {}\n")},
			{Path: "bin/tool", Mode: "100755", Content: []byte{0, 1, 2, 0xff}},
			{Path: "old.txt", Delete: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{opBlob, opBlob, opTree, opCommit, opCreateRef}
	if diff := cmp.Diff(want, writes(s)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	files := s.Files(repo, "optr/issue-7/run-1")
	wantFiles := map[string]string{"README.md": "# octo-repo\n", "src/a.go": "package a\n\nfunc A() {}\n", "bin/tool": "\x00\x01\x02\xff"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("branch files (-want +got):\n%s", diff)
	}
	log := s.Log(repo, "optr/issue-7/run-1")
	if log[0].SHA != commit || len(log[0].Parents) != 1 || log[0].Parents[0] != base {
		t.Errorf("branch log %+v, want %s on %s", log[0], commit, base)
	}
	if s.Head(repo, "main") != base {
		t.Error("the base branch moved")
	}

	// The branch exists now: a second push to it is refused, never forced.
	_, err = c.PushChange(ctx, ChangeRequest{Tip: tip, Branch: "optr/issue-7/run-1", Message: "again",
		Files: []File{{Path: "x", Mode: "100644", Content: []byte("x")}}})
	if !errors.Is(err, ErrBranchExists) {
		t.Errorf("second push = %v, want ErrBranchExists", err)
	}
	if s.Head(repo, "optr/issue-7/run-1") != commit {
		t.Error("the existing branch was moved")
	}
}

// A create-ref whose answer was lost is retried and recognised as done.
func TestPushChangeLostAnswer(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	tip, err := c.BranchTip(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	s.FailNext(opCreateRef, 1, githubtest.Lost(githubtest.BadGateway()))
	commit, err := c.PushChange(t.Context(), ChangeRequest{Tip: tip, Branch: "optr/w/r", Message: "m",
		Files: []File{{Path: "a", Mode: "100644", Content: []byte("a")}}})
	if err != nil || s.Head(repo, "optr/w/r") != commit {
		t.Errorf("PushChange = %s, %v; branch at %s", commit, err, s.Head(repo, "optr/w/r"))
	}
}

func TestPushChangeRefuses(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	tip := Tip{Commit: "c", Tree: "t"}
	file := []File{{Path: "a", Mode: "100644"}}
	tests := []struct {
		name string
		req  ChangeRequest
		want string
	}{
		{"no tip", ChangeRequest{Branch: "b", Message: "m", Files: file}, "no base commit"},
		{"bad branch", ChangeRequest{Tip: tip, Branch: "a/../b", Message: "m", Files: file}, "not a valid branch name"},
		{"no message", ChangeRequest{Tip: tip, Branch: "b", Files: file}, "message is empty"},
		{"no files", ChangeRequest{Tip: tip, Branch: "b", Message: "m"}, "changes no file"},
		{"path into .git", ChangeRequest{Tip: tip, Branch: "b", Message: "m", Files: []File{{Path: ".git/config", Mode: "100644"}}}, "not a clean"},
		{"dot dot", ChangeRequest{Tip: tip, Branch: "b", Message: "m", Files: []File{{Path: "../x", Mode: "100644"}}}, "not a clean"},
		{"gitlink", ChangeRequest{Tip: tip, Branch: "b", Message: "m", Files: []File{{Path: "m", Mode: "160000"}}}, "only files"},
	}
	for _, tc := range tests {
		if _, err := c.PushChange(t.Context(), tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if w := writes(s); len(w) != 0 {
		t.Errorf("refused pushes still wrote: %v", w)
	}
}

func TestOpenPullRequest(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	s.Commit(repo, "optr/w/r", map[string]string{"a": "a"}, "change")
	c := newClient(t, s, &sleeper{})
	s.FailNext(opCreatePull, 1, githubtest.Lost(githubtest.BadGateway()))
	pr, err := c.OpenPullRequest(t.Context(), PullRequestRequest{Base: "main", Head: "optr/w/r", Title: "optr: w", Body: "Closes #3", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 1 || !strings.HasSuffix(pr.URL, "/octo-org/octo-repo/pull/1") {
		t.Errorf("pull request %+v", pr)
	}
	want := []githubtest.PullRequest{{Number: 1, Title: "optr: w", Body: "Closes #3", Head: "optr/w/r", Base: "main", Draft: true, Login: githubtest.DefaultLogin}}
	if diff := cmp.Diff(want, s.Pulls(repo)); diff != "" {
		t.Errorf("pulls after a lost answer (-want +got):\n%s", diff)
	}
	for _, bad := range []PullRequestRequest{
		{Head: "h", Title: "t"},
		{Base: "main", Head: "optr/w/r"},
		{Base: "main", Head: "optr/w/r", Title: "t", Body: strings.Repeat("x", maxPullBody+1)},
	} {
		if _, err := c.OpenPullRequest(t.Context(), bad); err == nil {
			t.Errorf("OpenPullRequest(%+v) succeeded", bad)
		}
	}
	if _, err := c.OpenPullRequest(t.Context(), PullRequestRequest{Base: "main", Head: "nope", Title: "t"}); statusOf(err) != http.StatusUnprocessableEntity {
		t.Errorf("a pull request from a missing branch: %v", err)
	}
}
