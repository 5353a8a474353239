package githubtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

// openPull opens a pull request from a new branch "feature" into main.
func openPull(t *testing.T, s *Server, c *gh.Client) int {
	t.Helper()
	s.Commit(DefaultRepo, "feature", map[string]string{"a.txt": "a\n"}, "feature")
	pr, _, err := c.PullRequests.Create(t.Context(), owner, name, &gh.NewPullRequest{
		Title: gh.String("Add a"), Head: gh.String("feature"), Base: gh.String("main"), Body: gh.String("first"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return pr.GetNumber()
}

// A pull request is an issue too: its conversation is the issue's
// comments, and the issue says it is a pull request.
func TestPullRequestIsAnIssue(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	n := openPull(t, s, c)
	is, _, err := c.Issues.Get(ctx, owner, name, n)
	if err != nil || !is.IsPullRequest() || is.GetTitle() != "Add a" || is.GetBody() != "first" {
		t.Fatalf("issue %d = %+v, %v", n, is, err)
	}
	if _, _, err := c.Issues.CreateComment(ctx, owner, name, n, &gh.IssueComment{Body: gh.String("looks good")}); err != nil {
		t.Fatal(err)
	}
	if got := s.Comments(DefaultRepo, n); len(got) != 1 || got[0].Body != "looks good" {
		t.Errorf("comments = %+v", got)
	}
	edited, _, err := c.PullRequests.Edit(ctx, owner, name, n, &gh.PullRequest{Body: gh.String("second")})
	if err != nil || edited.GetBody() != "second" || s.Pulls(DefaultRepo)[0].Body != "second" {
		t.Errorf("edit = %v, %v; kept %+v", edited.GetBody(), err, s.Pulls(DefaultRepo))
	}
	_, _, err = c.PullRequests.Edit(ctx, owner, name, n, &gh.PullRequest{Body: gh.String(strings.Repeat("x", maxCommentBody+1))})
	if statusOf(err) != http.StatusUnprocessableEntity {
		t.Errorf("a body over 65536 characters: %v, want 422", err)
	}
}

func TestReviewsAndReviewComments(t *testing.T) {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	s := NewServer(t, WithClock(func() time.Time { return now }))
	c := newClient(t, s, "token")
	ctx := t.Context()
	n := openPull(t, s, c)
	early := s.AddReviewComment(DefaultRepo, n, "alice", "a.txt", 1, "rename this")
	now = now.Add(time.Hour)
	s.AddReview(DefaultRepo, n, "bob", ReviewChangesRequested, "/optr run\nhandle the empty input")
	for i := range 3 {
		s.AddReviewComment(DefaultRepo, n, "carol", "b.txt", 10+i, "more")
	}

	all, resp, err := c.PullRequests.ListComments(ctx, owner, name, n, &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}})
	if err != nil || len(all) != 2 || resp.NextPage != 2 || all[0].GetID() != early ||
		all[0].GetPath() != "a.txt" || all[0].GetLine() != 1 || all[0].GetBody() != "rename this" || all[0].GetUser().GetLogin() != "alice" {
		t.Fatalf("first page = %+v, next %d, %v", all, resp.NextPage, err)
	}
	since, _, err := c.PullRequests.ListComments(ctx, owner, name, n, &gh.PullRequestListCommentsOptions{Since: now})
	if err != nil || len(since) != 3 {
		t.Errorf("since the review: %d comments, %v; want 3", len(since), err)
	}
	reviews, _, err := c.PullRequests.ListReviews(ctx, owner, name, n, nil)
	if err != nil || len(reviews) != 5 || reviews[1].GetState() != ReviewChangesRequested ||
		reviews[1].GetBody() != "/optr run\nhandle the empty input" || reviews[1].GetCommitID() != s.Head(DefaultRepo, "feature") {
		t.Errorf("reviews = %+v, %v", reviews, err)
	}
	if _, _, err := c.Reactions.CreatePullRequestCommentReaction(ctx, owner, name, early, "eyes"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eyes"}, s.ReviewCommentReactions(DefaultRepo, early)); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
	if _, _, err := c.PullRequests.ListComments(ctx, owner, name, 99, nil); statusOf(err) != http.StatusNotFound {
		t.Errorf("comments of a missing pull request: %v, want 404", err)
	}
}

func TestAddPull(t *testing.T) {
	s := NewServer(t)
	s.Commit(DefaultRepo, "feature", map[string]string{"a.txt": "a\n"}, "feature")
	n := s.AddPull(DefaultRepo, "feature", "main", "by hand", "alice")
	if got := s.Pulls(DefaultRepo); len(got) != 1 || got[0].Number != n || got[0].Head != "feature" || got[0].Login != "alice" {
		t.Errorf("Pulls = %+v", got)
	}
	s.AddComment(DefaultRepo, n, "bob", "hi") // its conversation is an issue's
}

// A fork's pull request names the fork as its head repository.
func TestForkPull(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	n := s.AddForkPull(DefaultRepo, "mallory/octo-repo", "optr/issue-7/1-1", strings.Repeat("ab", 20), "main", "harmless", "mallory")
	pr, _, err := c.PullRequests.Get(t.Context(), owner, name, n)
	if err != nil || !pr.GetHead().GetRepo().GetFork() || pr.GetHead().GetRepo().GetFullName() != "mallory/octo-repo" ||
		pr.GetHead().GetRef() != "optr/issue-7/1-1" || pr.GetHead().GetSHA() != strings.Repeat("ab", 20) || pr.GetBase().GetRepo().GetFullName() != DefaultRepo {
		t.Errorf("fork pull = %+v, %v", pr.GetHead(), err)
	}
}

func TestCompare(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	main := s.Head(DefaultRepo, "main")
	one := s.Commit(DefaultRepo, "feature", map[string]string{"a.txt": "1\n"}, "one")
	two := s.Commit(DefaultRepo, "feature", map[string]string{"a.txt": "2\n"}, "two")
	other := s.Commit(DefaultRepo, "other", map[string]string{"b.txt": "b\n"}, "other")
	for _, tc := range []struct {
		base, head, status string
		ahead, behind      int
		mergeBase          string
		// files are what head changes since the merge base.
		files []string
	}{
		{one, one, "identical", 0, 0, one, nil},
		{one, "feature", "ahead", 1, 0, one, []string{"a.txt modified"}},
		{two, one, "behind", 0, 1, one, nil},
		{"feature", other, "diverged", 1, 2, main, []string{"b.txt added"}},
		{other, "feature", "diverged", 2, 1, main, []string{"a.txt added"}},
	} {
		cmp, _, err := c.Repositories.CompareCommits(ctx, owner, name, tc.base, tc.head, nil)
		if err != nil || cmp.GetStatus() != tc.status || cmp.GetAheadBy() != tc.ahead || cmp.GetBehindBy() != tc.behind ||
			cmp.GetMergeBaseCommit().GetSHA() != tc.mergeBase || len(cmp.Commits) != tc.ahead {
			t.Errorf("compare %.7s...%.7s = %s +%d -%d base %.7s, %v; want %s +%d -%d base %.7s",
				tc.base, tc.head, cmp.GetStatus(), cmp.GetAheadBy(), cmp.GetBehindBy(), cmp.GetMergeBaseCommit().GetSHA(), err,
				tc.status, tc.ahead, tc.behind, tc.mergeBase)
		}
		var files []string
		for _, f := range cmp.Files {
			files = append(files, f.GetFilename()+" "+f.GetStatus())
		}
		if !slices.Equal(files, tc.files) {
			t.Errorf("compare %.7s...%.7s lists files %q, want %q", tc.base, tc.head, files, tc.files)
		}
	}
	if _, _, err := c.Repositories.CompareCommits(ctx, owner, name, strings.Repeat("0", 40), "main", nil); statusOf(err) != http.StatusNotFound {
		t.Errorf("compare with an unknown commit: %v, want 404", err)
	}
}

// Clone gives a repository with the fake's very commits checked out.
func TestClone(t *testing.T) {
	s := NewServer(t)
	tip := s.Commit(DefaultRepo, "feature", map[string]string{"dir/a.txt": "a\n"}, "feature")
	dir := t.TempDir()
	if got := s.Clone(DefaultRepo, "feature", dir); got != tip {
		t.Fatalf("Clone = %s, want %s", got, tip)
	}
	out := gitOut(t, dir, "rev-parse", "HEAD")
	if out != tip {
		t.Errorf("HEAD = %s, want %s", out, tip)
	}
	if got := gitOut(t, dir, "show", "HEAD:dir/a.txt"); got != "a" {
		t.Errorf("dir/a.txt = %q", got)
	}
	gitOut(t, dir, "fsck", "--strict")
}
