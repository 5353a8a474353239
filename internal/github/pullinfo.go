package github

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"
)

// PullRequestInfo is what optr reads of a pull request before it iterates
// on it (architecture §4.16).
type PullRequestInfo struct {
	Number int
	URL    string
	// State is open or closed.
	State string
	// Body is the description, as it is now (anyone with write access may
	// have edited it).
	Body string
	// HeadRef and HeadSHA are the head branch and its commit; HeadRepo
	// the repository it lives in ("owner/name"), BaseRef the base branch.
	HeadRef, HeadSHA, HeadRepo, BaseRef string
	// Author is who opened it.
	Author string
	// Title is its title now.
	Title string
	// Created is when it was opened; Closed when it was closed (zero
	// while open). Merged says whether it was merged, by MergedBy (a
	// login, of type MergedByType: User, Bot, …) into MergeCommit.
	Created, Closed        time.Time
	Merged                 bool
	MergedBy, MergedByType string
	MergeCommit            string
}

// Fork reports whether the pull request comes from another repository
// than c's: a fork, whose code optr never runs with the repository's
// secrets.
func (p PullRequestInfo) Fork(c *Client) bool {
	return !strings.EqualFold(p.HeadRepo, c.Repository())
}

// PullRequest reads pull request number.
func (c *Client) PullRequest(ctx context.Context, number int) (PullRequestInfo, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return PullRequestInfo{}, fmt.Errorf("read pull request #%d of %s: %w", number, c.Repository(), err)
	}
	return pullInfo(pr), nil
}

// pullInfo is what optr reads of a pull request GitHub returned.
func pullInfo(pr *gh.PullRequest) PullRequestInfo {
	info := PullRequestInfo{
		Number: pr.GetNumber(), URL: pr.GetHTMLURL(), State: pr.GetState(), Body: pr.GetBody(),
		HeadRef: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA(), HeadRepo: pr.GetHead().GetRepo().GetFullName(),
		BaseRef: pr.GetBase().GetRef(), Author: pr.GetUser().GetLogin(), Title: pr.GetTitle(),
		Created: pr.GetCreatedAt().Time, Closed: pr.GetClosedAt().Time,
		Merged: pr.GetMerged() || !pr.GetMergedAt().IsZero(), MergeCommit: pr.GetMergeCommitSHA(),
		MergedBy: pr.GetMergedBy().GetLogin(), MergedByType: pr.GetMergedBy().GetType(),
	}
	if !info.Merged {
		info.MergeCommit = "" // GitHub's test merge, not a commit of the base
	}
	return info
}

// EditPullRequestBody replaces the description of pull request number
// with body, posted as given: redact it first.
func (c *Client) EditPullRequestBody(ctx context.Context, number int, body string) error {
	if n := utf8.RuneCountInString(body); n > maxPullBody {
		return fmt.Errorf("edit pull request #%d: the body has %d characters; GitHub takes at most %d", number, n, maxPullBody)
	}
	if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, &gh.PullRequest{Body: gh.String(body)}); err != nil {
		return fmt.Errorf("edit pull request #%d of %s: %w", number, c.Repository(), err)
	}
	return nil
}

// Comparison is how two commits relate (GET compare/{base}...{head}).
type Comparison struct {
	// Status is identical, ahead (head has commits base lacks), behind or
	// diverged.
	Status string
	// AheadBy and BehindBy count the commits each side has that the
	// other lacks.
	AheadBy, BehindBy int
}

// Compare compares commit base with head (shas or branch names).
func (c *Client) Compare(ctx context.Context, base, head string) (Comparison, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, &gh.ListOptions{PerPage: 1})
	if err != nil {
		return Comparison{}, fmt.Errorf("compare %.12s with %.12s in %s: %w", base, head, c.Repository(), err)
	}
	return Comparison{Status: cmp.GetStatus(), AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy()}, nil
}

// ReactToReviewComment adds a reaction (see React) to a comment on a
// line of a pull request's diff.
func (c *Client) ReactToReviewComment(ctx context.Context, commentID int64, content string) error {
	if !reactions[content] {
		return fmt.Errorf("react with %q: not a GitHub reaction (use +1, -1, laugh, confused, heart, hooray, rocket or eyes)", content)
	}
	if _, _, err := c.gh.Reactions.CreatePullRequestCommentReaction(ctx, c.owner, c.repo, commentID, content); err != nil {
		return fmt.Errorf("react %s to review comment %d: %w", content, commentID, err)
	}
	return nil
}

// DatedCommit is a commit with what an iteration reads of it.
type DatedCommit struct {
	SHA, Message string
	// Parent is the first parent, "" for a root commit.
	Parent string
	// Time is the committer's date.
	Time time.Time
}

// DatedCommit reads commit sha (GET git/commits/{sha}).
func (c *Client) DatedCommit(ctx context.Context, sha string) (DatedCommit, error) {
	gc, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return DatedCommit{}, fmt.Errorf("read commit %.7s: %w", sha, err)
	}
	out := DatedCommit{SHA: sha, Message: gc.GetMessage(), Time: gc.GetCommitter().GetDate().Time}
	if len(gc.Parents) > 0 {
		out.Parent = gc.Parents[0].GetSHA()
	}
	return out, nil
}

// MaxChangedFiles is how many files GitHub lists in a comparison: a
// change with this many may have more.
const MaxChangedFiles = 300

// ChangedFiles lists the paths head's change touches since its merge base
// with base (GET compare/{base}...{head}, GitHub's three-dot diff): every
// file added, removed or modified, and a renamed file under both names.
// GitHub lists at most MaxChangedFiles.
func (c *Client) ChangedFiles(ctx context.Context, base, head string) ([]string, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, &gh.ListOptions{PerPage: 1})
	if err != nil {
		return nil, fmt.Errorf("compare %.12s with %.12s in %s: %w", base, head, c.Repository(), err)
	}
	var out []string
	for _, f := range cmp.Files {
		out = append(out, f.GetFilename())
		if p := f.GetPreviousFilename(); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}
