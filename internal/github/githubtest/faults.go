package githubtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Fault is an answer the server gives instead of serving a request.
type Fault struct {
	// Status is the HTTP status.
	Status int
	// Header is added to the answer.
	Header http.Header
	// Message and DocumentationURL make GitHub's error body.
	Message          string
	DocumentationURL string
	// Served makes the server act on the request first and then answer
	// with the fault instead of the real answer: GitHub did the work, the
	// client cannot tell. Use it to test writes whose answer was lost.
	Served bool
	// resetIn, when set, makes the answer carry x-ratelimit-remaining: 0
	// and x-ratelimit-reset at the server's clock plus resetIn.
	resetIn time.Duration
}

// secondaryDocs is the documentation_url GitHub sends with a secondary rate
// limit; go-github recognises the 403 by it (*github.AbuseRateLimitError).
const secondaryDocs = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"

// Lost returns f with Served set: the request is acted on, then f is
// answered.
func Lost(f Fault) Fault {
	f.Served = true
	return f
}

// BadGateway is GitHub's 502, a transient server error.
func BadGateway() Fault {
	return Fault{Status: http.StatusBadGateway, Message: "Server Error"}
}

// SecondaryRateLimit is GitHub's 403 secondary rate limit with Retry-After.
func SecondaryRateLimit(retryAfter time.Duration) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Header:           http.Header{"Retry-After": {strconv.Itoa(int(retryAfter / time.Second))}},
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: secondaryDocs,
	}
}

// TooManyRequests is a 429 with Retry-After, which go-github v60 does not
// type as a rate limit.
func TooManyRequests(retryAfter time.Duration) Fault {
	return Fault{
		Status:           http.StatusTooManyRequests,
		Header:           http.Header{"Retry-After": {strconv.Itoa(int(retryAfter / time.Second))}},
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: secondaryDocs,
	}
}

// PrimaryRateLimit is GitHub's 403 when the hourly budget is spent: no
// Retry-After, x-ratelimit-remaining: 0 and x-ratelimit-reset resetIn from
// the server's clock (whole seconds).
func PrimaryRateLimit(resetIn time.Duration) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "API rate limit exceeded for installation.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
		resetIn:          resetIn,
	}
}

func (f Fault) reply(now time.Time) reply {
	h := http.Header{}
	for k, v := range f.Header {
		h[k] = append([]string(nil), v...)
	}
	if f.resetIn > 0 {
		h.Set("X-Ratelimit-Limit", "5000")
		h.Set("X-Ratelimit-Remaining", "0")
		h.Set("X-Ratelimit-Used", "5000")
		h.Set("X-Ratelimit-Resource", "core")
		h.Set("X-Ratelimit-Reset", strconv.FormatInt(now.Add(f.resetIn).Unix(), 10))
	}
	body := map[string]any{"message": f.Message, "status": strconv.Itoa(f.Status)}
	if f.DocumentationURL != "" {
		body["documentation_url"] = f.DocumentationURL
	}
	raw, _ := json.Marshal(body)
	h.Set("Content-Type", "application/json; charset=utf-8")
	return reply{status: f.Status, header: h, raw: raw}
}

// fault is a Fault waiting for requests of an operation.
type fault struct {
	op   string
	left int
	f    Fault
}

// FailNext answers the next n requests of operation op with f. op names an
// operation as the request log does ("POST /repos/{owner}/{repo}/git/trees")
// or is "*" for any request. Faults queue in the order they were added.
func (s *Server) FailNext(op string, n int, f Fault) {
	s.t.Helper()
	if op != "*" && !s.desc.ops[op] {
		s.t.Fatalf("githubtest: FailNext: %q is not an operation of the OpenAPI subset", op)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{op: op, left: n, f: f})
}

func (s *Server) takeFaultLocked(op string) *Fault {
	for i, f := range s.faults {
		if f.op != "*" && f.op != op {
			continue
		}
		f.left--
		if f.left <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return &f.f
	}
	return nil
}

// hook runs once before the next request of an operation is served.
type hook struct {
	op string
	fn func()
}

// BeforeNext runs fn once, before the next request of operation op is
// served (outside the server's lock, so fn may call the Server's methods,
// e.g. Commit to move a branch between a client's read and its update).
func (s *Server) BeforeNext(op string, fn func()) {
	s.t.Helper()
	if op != "*" && !s.desc.ops[op] {
		s.t.Fatalf("githubtest: BeforeNext: %q is not an operation of the OpenAPI subset", op)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, &hook{op: op, fn: fn})
}

func (s *Server) takeHook(op string) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range s.hooks {
		if h.op == "*" || h.op == op {
			s.hooks = append(s.hooks[:i], s.hooks[i+1:]...)
			return h.fn
		}
	}
	return nil
}

// ProtectedBranch is GitHub's 422 when a branch protection rule refuses a
// ref update; it is not a race.
func ProtectedBranch(branch string) Fault {
	return Fault{
		Status:           http.StatusUnprocessableEntity,
		Message:          "Protected branch update failed for refs/heads/" + branch + ".",
		DocumentationURL: "https://docs.github.com/rest/git/refs#update-a-reference",
	}
}

// RulesetViolation is GitHub's 422 when a repository ruleset refuses a ref
// update, with the rule's own text.
func RulesetViolation(rule string) Fault {
	return Fault{
		Status:           http.StatusUnprocessableEntity,
		Message:          "Repository rule violations found\n\n" + rule + "\n\n",
		DocumentationURL: "https://docs.github.com/rest/git/refs#update-a-reference",
	}
}
