package githubtest

import (
	"fmt"
	"net/url"
	"sync"
	"testing"

	gh "github.com/google/go-github/v60/github"
)

const (
	owner = "octo-org"
	name  = "octo-repo"
)

// newClient returns a go-github client for s that sends token (none when
// empty).
func newClient(t *testing.T, s *Server, token string) *gh.Client {
	t.Helper()
	c := gh.NewClient(s.Client())
	if token != "" {
		c = c.WithAuthToken(token)
	}
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

// recorder is a testing.TB that keeps the errors the server reports
// instead of failing the test, to test the reporting itself.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// statusOf returns the HTTP status of a go-github error.
func statusOf(err error) int {
	switch e := err.(type) {
	case *gh.ErrorResponse:
		return e.Response.StatusCode
	case *gh.RateLimitError:
		return e.Response.StatusCode
	case *gh.AbuseRateLimitError:
		return e.Response.StatusCode
	}
	return 0
}

// messageOf returns GitHub's error message of a go-github error.
func messageOf(err error) string {
	if e, ok := err.(*gh.ErrorResponse); ok {
		return e.Message
	}
	return ""
}
