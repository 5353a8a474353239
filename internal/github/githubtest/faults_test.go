package githubtest

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

const opGetRepo = "GET /repos/{owner}/{repo}"

func TestFaultsAsGoGitHubSeesThem(t *testing.T) {
	now := time.Unix(1700000000, 0)
	s := NewServer(t, WithClock(func() time.Time { return now }))

	tests := []struct {
		name  string
		fault Fault
		check func(t *testing.T, err error)
	}{
		{"secondary rate limit", SecondaryRateLimit(7 * time.Second), func(t *testing.T, err error) {
			var e *gh.AbuseRateLimitError
			if !errors.As(err, &e) || e.RetryAfter == nil || *e.RetryAfter != 7*time.Second {
				t.Errorf("error = %#v, want *AbuseRateLimitError with RetryAfter 7s", err)
			}
		}},
		{"429", TooManyRequests(3 * time.Second), func(t *testing.T, err error) {
			var e *gh.ErrorResponse
			if !errors.As(err, &e) || e.Response.StatusCode != http.StatusTooManyRequests || e.Response.Header.Get("Retry-After") != "3" {
				t.Errorf("error = %#v, want *ErrorResponse 429 with Retry-After 3 (go-github v60 does not type it)", err)
			}
		}},
		{"primary rate limit", PrimaryRateLimit(time.Hour), func(t *testing.T, err error) {
			var e *gh.RateLimitError
			if !errors.As(err, &e) || e.Rate.Remaining != 0 || !e.Rate.Reset.Time.Equal(now.Add(time.Hour)) {
				t.Errorf("error = %#v, want *RateLimitError resetting at %v", err, now.Add(time.Hour))
			}
		}},
		{"502", BadGateway(), func(t *testing.T, err error) {
			if statusOf(err) != http.StatusBadGateway {
				t.Errorf("error = %v, want 502", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.ResetRequests()
			s.FailNext(opGetRepo, 2, tc.fault)
			// go-github remembers rate limits per client: a fresh client
			// for each request sees what the server said.
			for range 2 {
				_, _, err := newClient(t, s, "token").Repositories.Get(t.Context(), owner, name)
				tc.check(t, err)
			}
			if _, _, err := newClient(t, s, "token").Repositories.Get(t.Context(), owner, name); err != nil {
				t.Errorf("third request: %v, want the fault used up", err)
			}
			var faulted []bool
			for _, r := range s.Requests() {
				faulted = append(faulted, r.Fault)
			}
			if diff := cmp.Diff([]bool{true, true, false}, faulted); diff != "" {
				t.Errorf("faulted requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFaultsMatchTheirOperation(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	s.FailNext("POST /repos/{owner}/{repo}/git/trees", 1, BadGateway())
	if _, _, err := c.Repositories.Get(t.Context(), owner, name); err != nil {
		t.Errorf("another operation was faulted: %v", err)
	}
	s.FailNext("*", 1, BadGateway())
	if _, _, err := c.Repositories.Get(t.Context(), owner, name); statusOf(err) != http.StatusBadGateway {
		t.Errorf("wildcard fault: %v, want 502", err)
	}
}

func TestBeforeNextRunsOnce(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	runs := 0
	s.BeforeNext(opGetRepo, func() {
		runs++
		s.Commit(DefaultRepo, "main", map[string]string{"moved": "yes"}, "moved")
	})
	for range 2 {
		if _, _, err := c.Repositories.Get(t.Context(), owner, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.File(DefaultRepo, "main", "moved"); runs != 1 || !ok {
		t.Errorf("hook ran %d times (file committed: %v), want once", runs, ok)
	}
}

func TestLostAnswer(t *testing.T) {
	s := NewServer(t)
	s.AddIssue(DefaultRepo, 1, "t", "b", "alice")
	s.FailNext("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", 1, Lost(BadGateway()))
	_, _, err := newClient(t, s, "token").Issues.CreateComment(t.Context(), owner, name, 1, &gh.IssueComment{Body: gh.String("hello")})
	if statusOf(err) != http.StatusBadGateway {
		t.Errorf("error = %v, want 502", err)
	}
	if got := len(s.Comments(DefaultRepo, 1)); got != 1 {
		t.Errorf("%d comments, want the one GitHub made before the answer was lost", got)
	}
}
