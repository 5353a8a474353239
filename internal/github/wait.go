package github

import (
	"net/http"
	"strconv"
	"time"

	gh "github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-retry"
)

// decision is what the transport does after one attempt.
type decision struct {
	retry bool
	wait  time.Duration
	// rateLimited is true when GitHub answered with a rate limit.
	rateLimited bool
}

// minRateLimitWait is what GitHub asks for when a rate limit answer says
// nothing about when to come back: "wait for at least one minute".
const minRateLimitWait = time.Minute

// decide classifies one attempt's outcome. Rate limits (403 primary or
// secondary, as go-github types them, and 429, which it does not) are
// retried for every request, since GitHub did not act on it; 5xx answers
// and broken connections only when the request is safe to send twice.
func (t *transport) decide(req *http.Request, op string, resp *http.Response, err error, b retry.Backoff) decision {
	if err != nil {
		if req.Context().Err() != nil || !replayable(req.Method, op) {
			return decision{}
		}
		d, _ := b.Next()
		return decision{retry: true, wait: d}
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests:
		return t.rateLimit(resp.Header, b)
	case code == http.StatusForbidden:
		// CheckResponse reads the body (to find the secondary limit's
		// documentation_url) and puts it back for go-github.
		switch gh.CheckResponse(resp).(type) {
		case *gh.RateLimitError, *gh.AbuseRateLimitError:
			return t.rateLimit(resp.Header, b)
		}
	case code == http.StatusInternalServerError, code == http.StatusBadGateway,
		code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		if !replayable(req.Method, op) {
			return decision{}
		}
		d, _ := b.Next()
		if w, ok := serverWait(resp.Header, t.now()); ok {
			d = w
		}
		return decision{retry: d <= t.maxWait, wait: d}
	}
	return decision{}
}

// rateLimit waits as long as GitHub asked, at least a minute when it did
// not say, and gives up when that is longer than maxWait.
func (t *transport) rateLimit(h http.Header, b retry.Backoff) decision {
	wait, ok := serverWait(h, t.now())
	if !ok {
		d, _ := b.Next()
		wait = max(minRateLimitWait, d)
	}
	return decision{retry: wait <= t.maxWait, wait: wait, rateLimited: true}
}

// serverWait reads how long GitHub asked to wait: Retry-After (seconds or
// an HTTP date), else the primary budget's x-ratelimit-reset when
// x-ratelimit-remaining is 0.
func serverWait(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 && s < 1<<31 {
			return time.Duration(s) * time.Second, true
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(0, at.Sub(now)), true
		}
	}
	if h.Get("X-Ratelimit-Remaining") == "0" {
		if s, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64); err == nil && s > 0 && s < 1<<40 {
			return max(0, time.Unix(s, 0).Sub(now)), true
		}
	}
	return 0, false
}

// opCreateComment is the one write optr makes that is not idempotent: sent
// twice, it posts two comments. It is never resent after an answer that
// leaves open whether GitHub acted; UpsertComment looks before trying again.
const opCreateComment = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"

func replayable(method, op string) bool {
	return method != http.MethodPost || op != opCreateComment
}
