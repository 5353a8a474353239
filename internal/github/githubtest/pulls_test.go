package githubtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

func TestPullRequests(t *testing.T) {
	s := NewServer(t)
	s.AddIssue(DefaultRepo, 1, "an issue", "", "alice")
	s.Commit(DefaultRepo, "feature", map[string]string{"a.txt": "a\n"}, "feature")
	c := newClient(t, s, "token")
	ctx := t.Context()

	pr, _, err := c.PullRequests.Create(ctx, owner, name, &gh.NewPullRequest{
		Title: gh.String("Add a"), Head: gh.String("feature"), Base: gh.String("main"),
		Body: gh.String("Closes #1"), Draft: gh.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetNumber() != 2 || !pr.GetDraft() || pr.GetHead().GetRef() != "feature" || pr.GetBase().GetRef() != "main" ||
		pr.GetHead().GetSHA() != s.Head(DefaultRepo, "feature") || !strings.HasSuffix(pr.GetHTMLURL(), "/octo-org/octo-repo/pull/2") {
		t.Errorf("created %+v", pr)
	}
	got, _, err := c.PullRequests.Get(ctx, owner, name, 2)
	if err != nil || got.GetBody() != "Closes #1" {
		t.Errorf("get = %v, %v", got, err)
	}
	list, _, err := c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{Head: "octo-org:feature", State: "open"})
	if err != nil || len(list) != 1 || list[0].GetNumber() != 2 {
		t.Errorf("list by head = %v, %v", list, err)
	}
	list, _, err = c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{Head: "octo-org:other"})
	if err != nil || len(list) != 0 {
		t.Errorf("list by another head = %v, %v", list, err)
	}
	want := []PullRequest{{Number: 2, Title: "Add a", Body: "Closes #1", Head: "feature", Base: "main", Draft: true, Login: DefaultLogin}}
	if diff := cmp.Diff(want, s.Pulls(DefaultRepo)); diff != "" {
		t.Errorf("Pulls (-want +got):\n%s", diff)
	}

	refusals := []struct {
		name string
		new  gh.NewPullRequest
		want string
	}{
		{"missing head", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("nope"), Base: gh.String("main")}, "Validation Failed"},
		{"missing base", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("feature"), Base: gh.String("nope")}, "Validation Failed"},
		{"duplicate", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("octo-org:feature"), Base: gh.String("main")}, "A pull request already exists for octo-org:feature."},
		{"no commits", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("main"), Base: gh.String("main")}, "No commits between main and main"},
	}
	for _, tc := range refusals {
		_, _, err := c.PullRequests.Create(ctx, owner, name, &tc.new)
		if statusOf(err) != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want 422 %q", tc.name, err, tc.want)
		}
	}
	if _, _, err := c.PullRequests.Get(ctx, owner, name, 1); statusOf(err) != http.StatusNotFound {
		t.Errorf("an issue read as a pull request: %v", err)
	}

	// A closed pull request is listed as closed, and another may be
	// opened from its branch.
	s.ClosePull(DefaultRepo, 2)
	if got, _, err := c.PullRequests.Get(ctx, owner, name, 2); err != nil || got.GetState() != "closed" {
		t.Errorf("a closed pull request = %v, %v", got.GetState(), err)
	}
	for state, want := range map[string]int{"": 0, "open": 0, "closed": 1, "all": 1} {
		list, _, err := c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{State: state})
		if err != nil || len(list) != want {
			t.Errorf("list state %q = %d pull requests, %v; want %d", state, len(list), err, want)
		}
	}
	again, _, err := c.PullRequests.Create(ctx, owner, name, &gh.NewPullRequest{Title: gh.String("Again"), Head: gh.String("feature"), Base: gh.String("main")})
	if err != nil || again.GetNumber() != 3 {
		t.Errorf("a pull request from a closed one's branch: %v, %v", again.GetNumber(), err)
	}
}
