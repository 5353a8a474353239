package github

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// openedPull opens a pull request from branch "optr/w/1-1" into main.
func openedPull(t *testing.T, s *githubtest.Server, c *Client) PullRequest {
	t.Helper()
	s.Commit(repo, "optr/w/1-1", map[string]string{"a.txt": "a\n"}, "change")
	p, err := c.OpenPullRequest(t.Context(), PullRequestRequest{Base: "main", Head: "optr/w/1-1", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPullRequestInfo(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	p := openedPull(t, s, c)
	got, err := c.PullRequest(ctx, p.Number)
	want := PullRequestInfo{Number: p.Number, URL: p.URL, State: "open", Body: "b", HeadRef: "optr/w/1-1",
		HeadSHA: s.Head(repo, "optr/w/1-1"), HeadRepo: repo, BaseRef: "main", Author: githubtest.DefaultLogin, Title: "t", Created: got.Created}
	if err != nil || got != want || got.Fork(c) || got.Created.IsZero() {
		t.Fatalf("PullRequest = %+v, %v (fork %v); want %+v", got, err, got.Fork(c), want)
	}
	fork := s.AddForkPull(repo, "mallory/octo-repo", "optr/w/1-1", strings.Repeat("1", 40), "main", "x", "mallory")
	if got, err := c.PullRequest(ctx, fork); err != nil || !got.Fork(c) || got.HeadRepo != "mallory/octo-repo" {
		t.Errorf("fork's pull request = %+v, %v; want a fork", got, err)
	}
	if err := c.EditPullRequestBody(ctx, p.Number, "b, then more"); err != nil || s.Pulls(repo)[0].Body != "b, then more" {
		t.Errorf("EditPullRequestBody: %v; body %q", err, s.Pulls(repo)[0].Body)
	}
	if err := c.EditPullRequestBody(ctx, p.Number, strings.Repeat("é", maxPullBody+1)); err == nil {
		t.Error("a body over GitHub's limit was sent")
	}
	if _, err := c.PullRequest(ctx, 99); err == nil {
		t.Error("a missing pull request gave no error")
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	first := s.Commit(repo, "b", map[string]string{"a": "1"}, "1")
	s.Commit(repo, "b", map[string]string{"a": "2"}, "2")
	got, err := c.Compare(t.Context(), first, "b")
	if want := (Comparison{Status: "ahead", AheadBy: 1}); err != nil || got != want {
		t.Errorf("Compare = %+v, %v; want %+v", got, err, want)
	}
}

// Remarks lists what people said since a time, oldest first, each kind
// with what locates it; reviews without a body are left out.
func TestRemarks(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	s := githubtest.NewServer(t, githubtest.WithClock(func() time.Time { return now }))
	c := newClient(t, s, &sleeper{})
	p := openedPull(t, s, c)
	s.AddComment(repo, p.Number, "alice", "before")
	now = now.Add(time.Minute)
	since := now
	rc := s.AddReviewComment(repo, p.Number, "bob", "a.txt", 3, "rename x")
	now = now.Add(time.Minute)
	ic := s.AddComment(repo, p.Number, "carol", "/optr run")
	s.AddReview(repo, p.Number, "dave", githubtest.ReviewApproved, "")
	now = now.Add(time.Minute)
	rv := s.AddReview(repo, p.Number, "erin", githubtest.ReviewChangesRequested, "handle empty input")

	got, err := c.Remarks(t.Context(), p.Number, since)
	if err != nil {
		t.Fatal(err)
	}
	want := Remarks{List: []Remark{
		{Kind: "review comment", ID: rc, Author: "bob", Path: "a.txt", Line: 3, Body: "rename x", Time: since},
		{Kind: "comment", ID: ic, Author: "carol", Body: "/optr run", Time: since.Add(time.Minute)},
		{Kind: "review", ID: rv, Author: "erin", Body: "handle empty input", Time: since.Add(2 * time.Minute)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Remarks (-want +got):\n%s", diff)
	}
}

// A pull request with more remarks than maxRemarkPages pages of a kind
// costs a bounded number of requests and says it was cut.
func TestRemarksBounded(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	p := openedPull(t, s, c)
	for i := range maxRemarkPages*100 + 1 {
		s.AddReviewComment(repo, p.Number, "bob", "a.txt", i+1, "nit")
	}
	s.ResetRequests()
	got, err := c.Remarks(t.Context(), p.Number, time.Time{})
	if err != nil || !got.Truncated || len(got.List) != maxRemarkPages*100 {
		t.Fatalf("Remarks: %d remarks, truncated %v, %v", len(got.List), got.Truncated, err)
	}
	if n := s.Count("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments"); n != maxRemarkPages {
		t.Errorf("%d pages of review comments read, want %d", n, maxRemarkPages)
	}
}

func TestDispatchWorkflow(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{
		".github/workflows/ci.yml":   "on: [pull_request, workflow_dispatch]\njobs: {}\n",
		".github/workflows/push.yml": "on: push\njobs: {}\n",
	}, "workflows")
	s.Commit(repo, "optr/w/1-1", map[string]string{"a.txt": "a\n"}, "change")
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	run, err := c.DispatchWorkflow(ctx, "ci.yml", "optr/w/1-1")
	if err != nil || run.ID == 0 || !strings.Contains(run.URL, "/actions/runs/") || run.Workflow != "ci.yml" {
		t.Fatalf("DispatchWorkflow = %+v, %v", run, err)
	}
	if runs := s.WorkflowRuns(repo); len(runs) != 1 || runs[0].Ref != "optr/w/1-1" || runs[0].ID != run.ID {
		t.Errorf("runs = %+v", runs)
	}
	for file, want := range map[string]string{
		"push.yml":    "GitHub refused to start push.yml (422): it has no workflow_dispatch trigger: add `workflow_dispatch:` to its `on:`",
		"missing.yml": "GitHub refused to start missing.yml (404): no such workflow: .github/workflows/missing.yml must exist on the default branch",
	} {
		_, err := c.DispatchWorkflow(ctx, file, "optr/w/1-1")
		var de *DispatchError
		if !errors.As(err, &de) || err.Error() != want {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	s.Deny("ghs_test", "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches")
	_, err = c.DispatchWorkflow(ctx, "ci.yml", "optr/w/1-1")
	if err == nil || !strings.Contains(err.Error(), "(403): Resource not accessible by integration: the job needs `permissions: actions: write`") {
		t.Errorf("without actions: write: %v", err)
	}
}

// PushChange with Update moves the branch from the tip it read, never
// forced: a branch that moved meanwhile is gitdata.ErrMoved.
func TestPushChangeUpdates(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	first := s.Commit(repo, "optr/w/1-1", map[string]string{"a.txt": "a\n"}, "change")
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	tip, err := c.BranchTip(ctx, "optr/w/1-1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.PushChange(ctx, ChangeRequest{Tip: tip, Branch: "optr/w/1-1", Message: "more", Update: true,
		Files: []File{{Path: "a.txt", Mode: "100644", Content: []byte("b\n")}}})
	if err != nil || s.Head(repo, "optr/w/1-1") != second {
		t.Fatalf("PushChange update = %s, %v; head %s", second, err, s.Head(repo, "optr/w/1-1"))
	}
	if log := s.Log(repo, "optr/w/1-1"); log[1].SHA != first {
		t.Errorf("the new commit's parent is %s, want %s", log[1].SHA, first)
	}
	// tip is stale now: the push must not move the branch back.
	_, err = c.PushChange(ctx, ChangeRequest{Tip: tip, Branch: "optr/w/1-1", Message: "stale", Update: true,
		Files: []File{{Path: "a.txt", Mode: "100644", Content: []byte("c\n")}}})
	if !errors.Is(err, gitdata.ErrMoved) || s.Head(repo, "optr/w/1-1") != second {
		t.Errorf("a push from a stale tip: %v (head %s); want ErrMoved and the branch left at %s", err, s.Head(repo, "optr/w/1-1"), second)
	}
}
