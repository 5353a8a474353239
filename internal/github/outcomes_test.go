package github

import (
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

// A merged pull request says who merged it and into which commit; one
// closed unmerged says nothing of who closed it, its issue does.
func TestPullRequestOutcome(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	s := githubtest.NewServer(t, githubtest.WithClock(func() time.Time { return now }))
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	merged := openedPull(t, s, c)
	s.Commit(repo, "optr/w/2-1", map[string]string{"b.txt": "b\n"}, "another change")
	closed, err := c.OpenPullRequest(ctx, PullRequestRequest{Base: "main", Head: "optr/w/2-1", Title: "u", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(90 * time.Minute)
	commit := s.MergePull(repo, merged.Number, "maintainer", "User")
	s.ClosePullBy(repo, closed.Number, "renovate[bot]", "Bot")

	m, err := c.PullRequest(ctx, merged.Number)
	if err != nil || !m.Merged || m.MergedBy != "maintainer" || m.MergedByType != "User" || m.MergeCommit != commit ||
		m.State != "closed" || m.Closed.Sub(m.Created) != 90*time.Minute {
		t.Errorf("merged pull request = %+v, %v", m, err)
	}
	if got, _ := s.File(repo, "main", "a.txt"); got != "a\n" {
		t.Errorf("main holds a.txt = %q after the merge", got)
	}
	x, err := c.PullRequest(ctx, closed.Number)
	if err != nil || x.Merged || x.MergeCommit != "" || x.MergedBy != "" || x.State != "closed" {
		t.Errorf("closed pull request = %+v, %v", x, err)
	}
	if login, typ, err := c.ClosedBy(ctx, closed.Number); err != nil || login != "renovate[bot]" || typ != "Bot" {
		t.Errorf("ClosedBy = %q, %q, %v", login, typ, err)
	}

	list, more, err := c.ClosedPullRequests(ctx, now.Add(-time.Hour))
	if err != nil || more || len(list) != 2 {
		t.Fatalf("ClosedPullRequests = %+v, %v, %v", list, more, err)
	}
	if list, _, _ := c.ClosedPullRequests(ctx, now.Add(time.Hour)); len(list) != 0 {
		t.Errorf("pull requests closed before since were listed: %+v", list)
	}
}

// Commits lists a branch's history newest first, by date and by path.
func TestCommits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	s := githubtest.NewServer(t, githubtest.WithClock(func() time.Time { return now }))
	c := newClient(t, s, &sleeper{})
	var shas []string
	for i, f := range []string{"a.txt", "b.txt", "a.txt"} {
		now = now.Add(time.Hour)
		shas = append(shas, s.Commit(repo, "main", map[string]string{f: string(rune('0' + i))}, "change "+f))
	}
	ctx := t.Context()
	all, more, err := c.Commits(ctx, CommitQuery{Branch: "main", Since: now.Add(-150 * time.Minute)})
	if err != nil || more || len(all) != 3 || all[0].SHA != shas[2] || all[2].SHA != shas[0] || all[0].Message != "change a.txt" || all[0].Author != "Octo Seed" || !all[0].Time.Equal(now) {
		t.Fatalf("Commits = %+v, %v, %v", all, more, err)
	}
	byPath, _, err := c.Commits(ctx, CommitQuery{Branch: "main", Path: "a.txt", Until: now.Add(-30 * time.Minute)})
	if err != nil || len(byPath) != 1 || byPath[0].SHA != shas[0] {
		t.Errorf("Commits of a.txt until before the last = %+v, %v", byPath, err)
	}
}
