package github

import (
	"context"
	"fmt"
	"sort"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Remark is one thing a person said on a pull request: a comment in its
// conversation, a comment on a line of its diff, or a review's body.
type Remark struct {
	// Kind is "comment", "review comment" or "review"; ID is its id among
	// those of its kind.
	Kind string
	ID   int64
	// Author is the login; Bot is true for a bot account.
	Author string
	Bot    bool
	// Path and Line locate a review comment (Line 0: on the file).
	Path string
	Line int
	Body string
	// Time is when it was made (a review: submitted).
	Time time.Time
}

// Remarks is what Remarks found.
type Remarks struct {
	// List are the remarks, oldest first.
	List []Remark
	// Truncated is true when a kind had more than maxRemarkPages pages:
	// only the oldest pages were read.
	Truncated bool
}

// maxRemarkPages bounds the pages of 100 read of each kind of remark:
// a pull request with thousands of comments costs a bounded number of
// requests.
const maxRemarkPages = 10

// Remarks lists what people said on pull request number at or after
// since: conversation comments, review comments and review bodies (a
// review without a body is left out), oldest first.
func (c *Client) Remarks(ctx context.Context, number int, since time.Time) (Remarks, error) {
	var out Remarks
	add := func(r Remark) {
		if !r.Time.Before(since) {
			out.List = append(out.List, r)
		}
	}
	user := func(u *gh.User) (string, bool) { return u.GetLogin(), u.GetType() == "Bot" }

	more, err := pages(func(page int) (int, error) {
		list, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, &gh.IssueListCommentsOptions{
			Since: &since, ListOptions: gh.ListOptions{Page: page, PerPage: 100},
		})
		for _, ic := range list {
			who, bot := user(ic.GetUser())
			add(Remark{Kind: "comment", ID: ic.GetID(), Author: who, Bot: bot, Body: ic.GetBody(), Time: ic.GetCreatedAt().Time})
		}
		return next(resp), err
	})
	if err != nil {
		return Remarks{}, fmt.Errorf("list the comments of pull request #%d: %w", number, err)
	}
	out.Truncated = out.Truncated || more

	more, err = pages(func(page int) (int, error) {
		list, resp, err := c.gh.PullRequests.ListComments(ctx, c.owner, c.repo, number, &gh.PullRequestListCommentsOptions{
			Since: since, ListOptions: gh.ListOptions{Page: page, PerPage: 100},
		})
		for _, rc := range list {
			who, bot := user(rc.GetUser())
			line := rc.GetLine()
			if line == 0 {
				line = rc.GetOriginalLine()
			}
			add(Remark{Kind: "review comment", ID: rc.GetID(), Author: who, Bot: bot, Path: rc.GetPath(), Line: line, Body: rc.GetBody(), Time: rc.GetCreatedAt().Time})
		}
		return next(resp), err
	})
	if err != nil {
		return Remarks{}, fmt.Errorf("list the review comments of pull request #%d: %w", number, err)
	}
	out.Truncated = out.Truncated || more

	more, err = pages(func(page int) (int, error) {
		list, resp, err := c.gh.PullRequests.ListReviews(ctx, c.owner, c.repo, number, &gh.ListOptions{Page: page, PerPage: 100})
		for _, rv := range list {
			if rv.GetBody() == "" {
				continue // its comments are listed above
			}
			who, bot := user(rv.GetUser())
			add(Remark{Kind: "review", ID: rv.GetID(), Author: who, Bot: bot, Body: rv.GetBody(), Time: rv.GetSubmittedAt().Time})
		}
		return next(resp), err
	})
	if err != nil {
		return Remarks{}, fmt.Errorf("list the reviews of pull request #%d: %w", number, err)
	}
	out.Truncated = out.Truncated || more

	sort.SliceStable(out.List, func(i, j int) bool { return out.List[i].Time.Before(out.List[j].Time) })
	return out, nil
}

// pages calls list for page 1, 2, … while it names a next page, at most
// maxRemarkPages times; more is true when pages were left.
func pages(list func(page int) (next int, err error)) (more bool, err error) {
	page := 1
	for range maxRemarkPages {
		n, err := list(page)
		if err != nil || n == 0 {
			return false, err
		}
		page = n
	}
	return true, nil
}

func next(resp *gh.Response) int {
	if resp == nil {
		return 0
	}
	return resp.NextPage
}
