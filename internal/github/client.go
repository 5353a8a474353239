package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"
	"golang.org/x/oauth2"
)

// DefaultAuthor is the login GITHUB_TOKEN posts as.
const DefaultAuthor = "github-actions[bot]"

// DefaultAPIURL is GitHub.com's REST API.
const DefaultAPIURL = "https://api.github.com/"

// Options configures a Client. Only Repository is required.
type Options struct {
	// APIURL is the REST API's base URL (GITHUB_API_URL), e.g.
	// https://api.github.com or https://ghes.example.com/api/v3; a path is
	// kept and a trailing slash added. Empty means DefaultAPIURL.
	APIURL string
	// Token authenticates every request (GITHUB_TOKEN); empty sends none.
	Token string
	// Repository is "owner/name" (GITHUB_REPOSITORY).
	Repository string
	// Author is the login optr's comments are posted as; only comments by
	// it are ever found and edited. Empty means DefaultAuthor.
	Author string
	// HTTPClient supplies the base transport (nil: http.DefaultTransport).
	HTTPClient *http.Client
	// UserAgent is sent with every request; empty means "optr".
	UserAgent string
	// Now is the clock used to read rate-limit reset times (nil: time.Now).
	Now func() time.Time
	// Sleep waits d or until ctx ends (nil: a timer). Tests record waits
	// with it instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxRetries bounds the retries of one request after a transient
	// failure or rate limit; 0 means 5, negative means none.
	MaxRetries int
	// MaxWait is the longest single wait for a rate limit; a longer one is
	// not waited out and the request fails. 0 means 10 minutes.
	MaxWait time.Duration
	// RequestTimeout bounds one attempt of one request, body included;
	// 0 means 60 seconds.
	RequestTimeout time.Duration
	// DefaultBranch is the repository's default branch when the caller
	// already knows it, e.g. from the event payload (DefaultBranchOf);
	// then DefaultBranch asks GitHub nothing. Empty: asked once, when
	// needed.
	DefaultBranch string
}

// Client talks to one repository. Its methods are safe for concurrent use.
type Client struct {
	gh          *gh.Client
	tr          *transport
	owner, repo string
	author      string

	mu            sync.Mutex
	defaultBranch string
	// comments caches the id of each comment found or created, by key.
	comments map[commentKey]int64
	// upsertMu makes an upsert's find-then-create atomic within the client,
	// so two concurrent upserts of one comment cannot both create it.
	upsertMu sync.Mutex
}

// New returns a Client for opts.Repository. It makes no request.
func New(ctx context.Context, opts Options) (*Client, error) {
	owner, repo, ok := strings.Cut(opts.Repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("repository %q is not owner/name: set GITHUB_REPOSITORY", opts.Repository)
	}
	base, err := apiURL(opts.APIURL)
	if err != nil {
		return nil, err
	}

	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if opts.Token != "" {
		// oauth2 adds the Authorization header; it sits below the retrying
		// transport so every attempt carries it.
		rt = oauth2.NewClient(context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: rt}),
			oauth2.StaticTokenSource(&oauth2.Token{AccessToken: opts.Token})).Transport
	}
	tr := newTransport(rt, base.Path, opts)
	client := gh.NewClient(&http.Client{Transport: tr, Jar: hc.Jar, CheckRedirect: hc.CheckRedirect})
	client.BaseURL = base
	client.UserAgent = opts.UserAgent
	if client.UserAgent == "" {
		client.UserAgent = "optr"
	}

	c := &Client{
		gh:       client,
		tr:       tr,
		owner:    owner,
		repo:     repo,
		author:   opts.Author,
		comments: map[commentKey]int64{},

		defaultBranch: opts.DefaultBranch,
	}
	if c.author == "" {
		c.author = DefaultAuthor
	}
	return c, nil
}

// apiURL parses GITHUB_API_URL and gives it the trailing slash go-github
// needs to resolve paths below it.
func apiURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an absolute URL: check GITHUB_API_URL", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// Repository returns "owner/name".
func (c *Client) Repository() string { return c.owner + "/" + c.repo }

// Author returns the login the client's comments are posted as.
func (c *Client) Author() string { return c.author }

// Stats returns the requests counted so far.
func (c *Client) Stats() Stats { return c.tr.stats.snapshot() }

// DefaultBranch returns the repository's default branch: Options.DefaultBranch
// when set, else asked of GitHub once per client.
func (c *Client) DefaultBranch(ctx context.Context) (string, error) {
	c.mu.Lock()
	b := c.defaultBranch
	c.mu.Unlock()
	if b != "" {
		return b, nil
	}
	r, _, err := c.gh.Repositories.Get(ctx, c.owner, c.repo)
	if err != nil {
		return "", fmt.Errorf("read repository %s: %w", c.Repository(), err)
	}
	if r.GetDefaultBranch() == "" {
		return "", fmt.Errorf("repository %s has no default branch: set the ledger branch explicitly", c.Repository())
	}
	c.mu.Lock()
	c.defaultBranch = r.GetDefaultBranch()
	c.mu.Unlock()
	return r.GetDefaultBranch(), nil
}

// statusOf returns the HTTP status of a go-github error, or 0.
func statusOf(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var ab *gh.AbuseRateLimitError
	if errors.As(err, &ab) && ab.Response != nil {
		return ab.Response.StatusCode
	}
	return 0
}

// messageOf returns GitHub's error message of a go-github error, or "".
func messageOf(err error) string {
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Message
	}
	return ""
}
