package github

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

const repo = githubtest.DefaultRepo

// sleeper records the waits a Client asks for, without waiting.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newClient returns a Client for the fake server's default repository
// whose sleeps are recorded by sl; edit adjusts the options.
func newClient(t *testing.T, s *githubtest.Server, sl *sleeper, edit ...func(*Options)) *Client {
	t.Helper()
	opts := Options{
		APIURL:     s.URL(),
		Token:      "ghs_test",
		Repository: repo,
		HTTPClient: s.Client(),
		Sleep:      sl.sleep,
	}
	for _, e := range edit {
		e(&opts)
	}
	c, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// inFlight wraps a transport and records the most writes ever in flight at
// once.
type inFlight struct {
	base     http.RoundTripper
	mu       sync.Mutex
	now, max int
	reads    int
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		f.mu.Lock()
		f.reads++
		f.mu.Unlock()
		return f.base.RoundTrip(r)
	}
	f.mu.Lock()
	f.now++
	f.max = max(f.max, f.now)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	}()
	// Hold the write a moment so overlapping writes would show.
	time.Sleep(2 * time.Millisecond)
	return f.base.RoundTrip(r)
}
