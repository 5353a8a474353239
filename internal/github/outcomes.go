package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// What people did with optr's pull requests (architecture §4.19): who closed
// one, the pull requests closed lately, and the commits of a branch.

// ClosedBy returns who closed pull request (or issue) number: a login and
// its type (User, Bot, …), empty when GitHub does not say. A pull
// request's own record names who merged it (PullRequestInfo.MergedBy),
// but not who closed it unmerged; its issue does.
func (c *Client) ClosedBy(ctx context.Context, number int) (login, typ string, err error) {
	is, _, err := c.gh.Issues.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return "", "", fmt.Errorf("read issue #%d of %s: %w", number, c.Repository(), err)
	}
	return is.GetClosedBy().GetLogin(), is.GetClosedBy().GetType(), nil
}

// maxListPages bounds the pages of 100 a listing reads: a bound on the
// requests of one run, whatever the repository's history.
const maxListPages = 3

// ClosedPullRequests lists the pull requests closed (merged or not)
// whose last update is at or after since, most recently updated first:
// at most maxListPages pages of 100. more is true when there may be more
// than it read.
func (c *Client) ClosedPullRequests(ctx context.Context, since time.Time) (pulls []PullRequestInfo, more bool, err error) {
	opts := &gh.PullRequestListOptions{State: "closed", Sort: "updated", Direction: "desc", ListOptions: gh.ListOptions{PerPage: 100}}
	for page := 1; page <= maxListPages; page++ {
		opts.Page = page
		list, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
		if err != nil {
			return pulls, false, fmt.Errorf("list the closed pull requests of %s: %w", c.Repository(), err)
		}
		for _, pr := range list {
			if pr.GetUpdatedAt().Time.Before(since) {
				return pulls, false, nil
			}
			pulls = append(pulls, pullInfo(pr))
		}
		if resp.NextPage == 0 {
			return pulls, false, nil
		}
	}
	return pulls, true, nil
}

// Commit is a commit as a branch's history lists it.
type Commit struct {
	SHA, Message string
	// Author is the author's name as git records it (not a login);
	// Time the committer's date.
	Author string
	Time   time.Time
}

// CommitQuery selects the commits Commits lists.
type CommitQuery struct {
	// Branch is where the history starts (a branch, a ref or a sha).
	Branch string
	// Since and Until bound the committer's date (zero: unbounded).
	Since, Until time.Time
	// Path, when set, keeps the commits that changed that file.
	Path string
}

// Commits lists the commits of q.Branch's history that q selects, newest
// first: at most maxListPages pages of 100. more is true when there may
// be more than it read.
func (c *Client) Commits(ctx context.Context, q CommitQuery) (commits []Commit, more bool, err error) {
	opts := &gh.CommitsListOptions{SHA: q.Branch, Path: q.Path, Since: q.Since, Until: q.Until, ListOptions: gh.ListOptions{PerPage: 100}}
	for page := 1; page <= maxListPages; page++ {
		opts.Page = page
		list, resp, err := c.gh.Repositories.ListCommits(ctx, c.owner, c.repo, opts)
		if err != nil {
			return commits, false, fmt.Errorf("list the commits of %s in %s: %w", q.Branch, c.Repository(), err)
		}
		for _, rc := range list {
			commits = append(commits, Commit{
				SHA: rc.GetSHA(), Message: rc.GetCommit().GetMessage(),
				Author: rc.GetCommit().GetAuthor().GetName(), Time: rc.GetCommit().GetCommitter().GetDate().Time,
			})
		}
		if resp.NextPage == 0 {
			return commits, false, nil
		}
	}
	return commits, true, nil
}
