package github

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

const opGetRepo = "GET /repos/{owner}/{repo}"

// TestRateLimitsAreWaitedOut: every kind of rate limit GitHub answers with
// is waited out for exactly as long as it asked, then retried.
func TestRateLimitsAreWaitedOut(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tests := []struct {
		name  string
		fault githubtest.Fault
		n     int
		want  []time.Duration
	}{
		{"403 secondary with Retry-After", githubtest.SecondaryRateLimit(7 * time.Second), 1, []time.Duration{7 * time.Second}},
		{"429 with Retry-After", githubtest.TooManyRequests(3 * time.Second), 2, []time.Duration{3 * time.Second, 3 * time.Second}},
		{"403 primary until x-ratelimit-reset", githubtest.PrimaryRateLimit(42 * time.Second), 1, []time.Duration{42 * time.Second}},
		{"403 secondary without Retry-After waits a minute", githubtest.Fault{Status: 403, Message: "slow down",
			DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}, 1, []time.Duration{time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.NewServer(t, githubtest.WithClock(func() time.Time { return now }))
			s.FailNext(opGetRepo, tc.n, tc.fault)
			sl := &sleeper{}
			c := newClient(t, s, sl, func(o *Options) { o.Now = func() time.Time { return now } })
			b, err := c.DefaultBranch(t.Context())
			if err != nil || b != "main" {
				t.Fatalf("DefaultBranch = %q, %v; want main after waiting", b, err)
			}
			if diff := cmp.Diff(tc.want, sl.recorded()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			st := c.Stats()
			want := Stats{Requests: tc.n + 1, Retries: tc.n, RateLimited: tc.n, ByOperation: map[string]int{opGetRepo: tc.n + 1}}
			for _, w := range tc.want {
				want.Waited += w
			}
			if diff := cmp.Diff(want, st); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerErrorsBackOff(t *testing.T) {
	s := githubtest.NewServer(t)
	s.FailNext(opGetRepo, 3, githubtest.BadGateway())
	sl := &sleeper{}
	c := newClient(t, s, sl)
	if _, err := c.DefaultBranch(t.Context()); err != nil {
		t.Fatal(err)
	}
	waits := sl.recorded()
	if len(waits) != 3 {
		t.Fatalf("waits = %v, want 3", waits)
	}
	// Exponential from 1s with ±25% jitter.
	for i, w := range waits {
		base := time.Second << i
		if w < base*3/4 || w > base*5/4 {
			t.Errorf("wait %d = %v, want %v ± 25%%", i, w, base)
		}
	}
}

func TestRetriesAreBounded(t *testing.T) {
	s := githubtest.NewServer(t)
	s.FailNext(opGetRepo, 10, githubtest.BadGateway())
	c := newClient(t, s, &sleeper{}, func(o *Options) { o.MaxRetries = 2 })
	_, err := c.DefaultBranch(t.Context())
	if statusOf(err) != http.StatusBadGateway {
		t.Errorf("error = %v, want the last 502", err)
	}
	if got := s.Count(opGetRepo); got != 3 {
		t.Errorf("%d requests, want 1 + 2 retries", got)
	}
}

func TestTooLongWaitIsNotWaited(t *testing.T) {
	s := githubtest.NewServer(t)
	s.FailNext(opGetRepo, 1, githubtest.SecondaryRateLimit(time.Hour))
	sl := &sleeper{}
	c := newClient(t, s, sl, func(o *Options) { o.MaxWait = time.Minute })
	_, err := c.DefaultBranch(t.Context())
	var abuse *gh.AbuseRateLimitError
	if !errors.As(err, &abuse) {
		t.Errorf("error = %v, want *github.AbuseRateLimitError", err)
	}
	if len(sl.recorded()) != 0 {
		t.Errorf("waited %v, want no wait beyond MaxWait", sl.recorded())
	}
}

// TestSpentBudgetWaitsBeforeSending: a successful answer saying the hourly
// budget is spent makes the next request wait for the reset instead of
// being refused.
func TestSpentBudgetWaitsBeforeSending(t *testing.T) {
	// The reset is in the real future too: go-github checks it against the
	// wall clock and would refuse the next request itself.
	now := time.Now().Truncate(time.Second)
	reset := strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	spent := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := s.Client().Transport.RoundTrip(r)
		if err == nil && r.Method == http.MethodGet {
			resp.Header.Set("X-Ratelimit-Remaining", "0")
			resp.Header.Set("X-Ratelimit-Reset", reset)
		}
		return resp, err
	})}
	sl := &sleeper{}
	c := newClient(t, s, sl, func(o *Options) {
		o.HTTPClient = spent
		o.Now = func() time.Time { return now }
	})
	if _, err := c.DefaultBranch(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.React(t.Context(), 1, 0, "eyes"); err != nil {
		t.Fatalf("the request after the spent budget: %v", err)
	}
	if diff := cmp.Diff([]time.Duration{30 * time.Second}, sl.recorded()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if got := len(s.Requests()); got != 2 {
		t.Errorf("%d requests reached the server, want 2", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCreateCommentIsNotResent(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	s.FailNext(opCreateComment, 1, githubtest.BadGateway())
	c := newClient(t, s, &sleeper{})
	if _, err := c.CreateComment(t.Context(), 1, "x"); statusOf(err) != http.StatusBadGateway {
		t.Errorf("error = %v, want 502 passed through", err)
	}
	if got := s.Count(opCreateComment); got != 1 {
		t.Errorf("%d create requests, want 1", got)
	}
	// A rate limit means GitHub did nothing: that is resent.
	s.FailNext(opCreateComment, 1, githubtest.TooManyRequests(time.Second))
	if _, err := c.CreateComment(t.Context(), 1, "y"); err != nil {
		t.Errorf("after a 429: %v", err)
	}
	if got := len(s.Comments(repo, 1)); got != 1 {
		t.Errorf("%d comments, want 1", got)
	}
}

func TestWritesAreSerialised(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	probe := &inFlight{base: s.Client().Transport}
	c := newClient(t, s, &sleeper{}, func(o *Options) { o.HTTPClient = &http.Client{Transport: probe} })
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := c.UpsertComment(t.Context(), 1, comment.KindRun, string(rune('a'+i)), "x"); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := c.React(t.Context(), 1, 0, "eyes"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if probe.max != 1 {
		t.Errorf("up to %d writes in flight at once, want 1", probe.max)
	}
}

func TestServerWait(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "12"}, 12 * time.Second, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).UTC().Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).UTC().Format(http.TimeFormat)}, 0, true},
		{"reset when spent", map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "1700000100"}, 100 * time.Second, true},
		{"reset ignored when not spent", map[string]string{"X-Ratelimit-Remaining": "10", "X-Ratelimit-Reset": "1700000100"}, 0, false},
		{"Retry-After wins", map[string]string{"Retry-After": "5", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "1700000100"}, 5 * time.Second, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"nothing", nil, 0, false},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		got, ok := serverWait(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: serverWait = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzServerWait(f *testing.F) {
	for _, s := range []string{"0", "12", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "99999999999999999999", ""} {
		f.Add(s, "0", "1700000100")
	}
	f.Fuzz(func(t *testing.T, retryAfter, remaining, reset string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("X-Ratelimit-Remaining", remaining)
		h.Set("X-Ratelimit-Reset", reset)
		d, ok := serverWait(h, time.Unix(1700000000, 0))
		if d < 0 || !ok && d != 0 {
			t.Errorf("serverWait = %v, %v", d, ok)
		}
	})
}
