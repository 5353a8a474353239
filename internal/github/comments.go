package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"
	"github.com/optr-dev/optr/internal/comment"
)

// Comment is an issue comment optr posted.
type Comment struct {
	// ID identifies the comment for edits.
	ID int64
	// Body is the comment's text as GitHub holds it.
	Body string
	// Author is the login that posted it.
	Author string
	// URL is the comment's page.
	URL string
}

// commentKey names one of optr's comments: the marker kind and id on an
// issue.
type commentKey struct {
	issue    int
	kind, id string
}

// FindComment returns optr's comment of kind about id on the issue, or nil
// when there is none. A comment counts only when it carries the marker
// comment.Marker(kind, id) and was posted by the client's Author: anyone
// can paste a marker into a comment of their own. Comments are scanned
// oldest first, 100 a page; the first match wins.
func (c *Client) FindComment(ctx context.Context, issue int, kind, id string) (*Comment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, issue, opts)
		if err != nil {
			return nil, fmt.Errorf("list the comments of issue #%d: %w", issue, err)
		}
		for _, ic := range page {
			if strings.EqualFold(ic.GetUser().GetLogin(), c.author) && comment.HasMarker(ic.GetBody(), kind, id) {
				found := &Comment{ID: ic.GetID(), Body: ic.GetBody(), Author: ic.GetUser().GetLogin(), URL: ic.GetHTMLURL()}
				c.remember(commentKey{issue, kind, id}, found.ID)
				return found, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// OwnComments returns optr's comments of kind on every issue of the
// repository, oldest first: those that carry a marker of that kind and were
// posted by the client's Author (anyone can paste a marker, architecture §6).
// It lists the repository's issue comments, 100 a page.
func (c *Client) OwnComments(ctx context.Context, kind string) ([]Comment, error) {
	opts := &gh.IssueListCommentsOptions{Sort: gh.String("created"), Direction: gh.String("asc"), ListOptions: gh.ListOptions{PerPage: 100}}
	var out []Comment
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, 0, opts)
		if err != nil {
			return nil, fmt.Errorf("list the issue comments of %s: %w", c.Repository(), err)
		}
		for _, ic := range page {
			if k, _, ok := comment.ParseMarker(ic.GetBody()); ok && k == kind && strings.EqualFold(ic.GetUser().GetLogin(), c.author) {
				out = append(out, Comment{ID: ic.GetID(), Body: ic.GetBody(), Author: ic.GetUser().GetLogin(), URL: ic.GetHTMLURL()})
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// UpsertComment makes optr's comment of kind about id on the issue say
// body: it edits the comment when there is one and creates it otherwise, so
// retries never post a second one. body gets the marker on its first line
// when it lacks it, and is cut to GitHub's limit (comment.Fit). The
// comment's id is kept, so later upserts edit it without scanning.
func (c *Client) UpsertComment(ctx context.Context, issue int, kind, id, body string) (int64, error) {
	body = withMarker(body, kind, id)
	key := commentKey{issue, kind, id}
	c.upsertMu.Lock()
	defer c.upsertMu.Unlock()

	if cid, ok := c.known(key); ok {
		err := c.EditComment(ctx, cid, body)
		if err == nil {
			return cid, nil
		}
		if statusOf(err) != http.StatusNotFound {
			return 0, err
		}
		c.forget(key) // deleted on GitHub: find or create it again
	}
	for try := 0; ; try++ {
		found, err := c.FindComment(ctx, issue, kind, id)
		if err != nil {
			return 0, err
		}
		if found != nil {
			if err := c.EditComment(ctx, found.ID, body); err != nil {
				return 0, err
			}
			return found.ID, nil
		}
		cid, err := c.CreateComment(ctx, issue, body)
		if err == nil {
			c.remember(key, cid)
			return cid, nil
		}
		// An answer that leaves open whether GitHub posted the comment:
		// look again before posting, once.
		if try > 0 || !ambiguous(err) {
			return 0, err
		}
	}
}

// withMarker returns body fitted to GitHub's limit with the marker for kind
// and id on its first line when body does not carry it where the cut keeps it.
func withMarker(body, kind, id string) string {
	fitted := comment.Fit(body, "")
	if comment.HasMarker(fitted, kind, id) {
		return fitted
	}
	return comment.Fit(comment.Marker(kind, id)+"\n"+body, "")
}

// ambiguous reports whether a failed write may still have happened: a 5xx
// answer, or a connection that broke or timed out after the request left.
func ambiguous(err error) bool {
	if s := statusOf(err); s >= 500 {
		return true
	}
	var rl *RateLimitedError
	if errors.As(err, &rl) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// CreateComment posts body (cut to GitHub's limit) on the issue and returns
// the new comment's id. Prefer UpsertComment, which cannot post twice.
func (c *Client) CreateComment(ctx context.Context, issue int, body string) (int64, error) {
	ic, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, issue, &gh.IssueComment{Body: gh.String(comment.Fit(body, ""))})
	if err != nil {
		return 0, fmt.Errorf("comment on issue #%d: %w", issue, err)
	}
	return ic.GetID(), nil
}

// EditComment replaces the body of comment id (cut to GitHub's limit).
func (c *Client) EditComment(ctx context.Context, id int64, body string) error {
	_, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, id, &gh.IssueComment{Body: gh.String(comment.Fit(body, ""))})
	if err != nil {
		return fmt.Errorf("edit comment %d: %w", id, err)
	}
	return nil
}

func (c *Client) known(k commentKey) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.comments[k]
	return id, ok
}

func (c *Client) remember(k commentKey, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.comments[k] = id
}

func (c *Client) forget(k commentKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.comments, k)
}
