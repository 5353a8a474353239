package recovery

import (
	"context"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
)

// fakeClock is a Clock whose Sleep returns at once, moving the time on and
// recording the wait. It is safe for concurrent use.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// ok answers output using tokens tokens.
func ok(output string, tokens int64) agenttest.Reply {
	return func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: output, Usage: agent.Usage{InputTokens: tokens}}, nil
	}
}

// fail fails with e after using tokens tokens.
func fail(e *agent.Error, tokens int64) agenttest.Reply {
	return func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: "partial", Stderr: "boom", Usage: agent.Usage{OutputTokens: tokens}}, e
	}
}

func rateLimited(after time.Duration) *agent.Error {
	return &agent.Error{Class: agent.Transient, Reason: "rate_limited", Status: 429, RetryAfter: after, Err: errString("too many requests")}
}

func unavailable() *agent.Error {
	return &agent.Error{Class: agent.Transient, Reason: "server_error", Status: 503, Err: errString("service unavailable")}
}

func unauthorized() *agent.Error {
	return &agent.Error{Class: agent.Fatal, Reason: "unauthorized", Status: 401, Err: errString("bad credentials")}
}

func unusable() *agent.Error {
	return agent.Errorf(agent.Systematic, "unparseable_output", "the model's answer is not JSON")
}

type errString string

func (e errString) Error() string { return string(e) }

// half is a Rand that always returns 0.5, so Backoff is half its ceiling.
func half() float64 { return 0.5 }
