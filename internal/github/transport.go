package github

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/clock"
	"github.com/sethvargo/go-retry"
)

// transport is the single retry layer under go-github. It is a
// RoundTripper rather than a loop around each call so that every request
// (including raw downloads) gets the same treatment, and so that waits
// happen before go-github sees a rate-limit answer: go-github v60 remembers
// a secondary limit against the wall clock and would refuse the retry
// locally. go-retry supplies the backoff schedule; the loop is ours because
// waits may also come from the server (Retry-After, x-ratelimit-reset) and
// the clock and sleep are injectable.
type transport struct {
	base       http.RoundTripper
	basePath   string
	now        func() time.Time
	sleep      func(ctx context.Context, d time.Duration) error
	maxRetries int
	maxWait    time.Duration
	timeout    time.Duration

	// writes admits one write at a time (a semaphore, so that waiting for
	// it respects the request's context).
	writes chan struct{}

	mu sync.Mutex
	// exhaustedUntil is the primary rate limit's reset when a successful
	// answer said the budget is spent.
	exhaustedUntil time.Time

	stats *counter
}

func newTransport(base http.RoundTripper, basePath string, o Options) *transport {
	t := &transport{
		base:       base,
		basePath:   basePath,
		now:        o.Now,
		sleep:      o.Sleep,
		maxRetries: o.MaxRetries,
		maxWait:    o.MaxWait,
		timeout:    o.RequestTimeout,
		writes:     make(chan struct{}, 1),
		stats:      newCounter(),
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.sleep == nil {
		t.sleep = clock.Sleep
	}
	switch {
	case t.maxRetries == 0:
		t.maxRetries = 5
	case t.maxRetries < 0:
		t.maxRetries = 0
	}
	if t.maxWait <= 0 {
		t.maxWait = 10 * time.Minute
	}
	if t.timeout <= 0 {
		t.timeout = 60 * time.Second
	}
	return t
}

// backoff is the schedule for 5xx answers and broken connections.
func backoff() retry.Backoff {
	return retry.WithJitterPercent(25, retry.WithCappedDuration(30*time.Second, retry.NewExponential(time.Second)))
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	op := operation(req.Method, req.URL.Path, t.basePath)

	if err := t.waitExhausted(ctx); err != nil {
		return nil, err
	}
	if isWrite(req.Method) {
		select {
		case t.writes <- struct{}{}:
			defer func() { <-t.writes }()
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}

	maxRetries, maxWait := t.limits(ctx)
	b := backoff()
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			var err error
			if r, err = rewind(req); err != nil {
				return nil, err
			}
		}
		t.stats.request(ctx, op, attempt > 0)
		resp, err := t.attempt(r)
		d := t.decide(req, op, resp, err, b)
		if d.rateLimited {
			t.stats.rateLimited()
		}
		if !d.retry || attempt >= maxRetries || d.wait > maxWait {
			return resp, err
		}
		if resp != nil {
			// Drain a little so the connection can be reused.
			_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
			resp.Body.Close()
		}
		t.stats.waited(d.wait)
		if err := t.sleep(ctx, d.wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends one request with its own timeout, which ends when the
// answer's body is closed.
func (t *transport) attempt(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	t.noteRate(resp)
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// rewind returns a copy of req with a fresh body for another attempt.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("retry request: its body cannot be replayed")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r.Body = body
	return r, nil
}

func isWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// noteRate remembers a spent primary budget from a successful answer, so
// the next request waits for the reset here instead of being sent to fail.
// go-github would otherwise refuse that request itself, without waiting and
// against the wall clock, so the reset header is taken out of the answer
// once it is recorded here.
func (t *transport) noteRate(resp *http.Response) {
	if resp.StatusCode >= 300 || resp.Header.Get("X-Ratelimit-Remaining") != "0" {
		return
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	t.mu.Lock()
	t.exhaustedUntil = time.Unix(reset, 0)
	t.mu.Unlock()
	resp.Header.Del("X-Ratelimit-Reset")
}

// waitExhausted waits for the primary budget's reset when it is spent.
func (t *transport) waitExhausted(ctx context.Context) error {
	t.mu.Lock()
	until := t.exhaustedUntil
	t.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	d := until.Sub(t.now())
	if _, maxWait := t.limits(ctx); d > maxWait {
		return &RateLimitedError{Until: until}
	}
	if d > 0 {
		t.stats.waited(d)
		if err := t.sleep(ctx, d); err != nil {
			return err
		}
	}
	t.mu.Lock()
	if t.exhaustedUntil.Equal(until) {
		t.exhaustedUntil = time.Time{}
	}
	t.mu.Unlock()
	return nil
}

// RateLimitedError is returned, without a request, while GitHub's hourly
// request budget is spent and its reset is further away than MaxWait.
type RateLimitedError struct {
	// Until is when the budget resets.
	Until time.Time
}

// Error implements error.
func (e *RateLimitedError) Error() string {
	return "GitHub API rate limit spent until " + e.Until.UTC().Format(time.RFC3339) + ": re-run after that time"
}
