package github

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/gitdata"
)

// Stats counts the requests a Client sent.
type Stats struct {
	// Requests is the number of requests sent, retries included.
	Requests int
	// Retries is how many of them repeated an earlier attempt.
	Retries int
	// RateLimited is how many answers were rate limits (403 or 429).
	RateLimited int
	// Waited is the time spent waiting before retries and for rate limits.
	Waited time.Duration
	// ByOperation counts requests, retries included, by operation, e.g.
	// "POST /repos/{owner}/{repo}/git/trees".
	ByOperation map[string]int
}

type counter struct {
	mu sync.Mutex
	s  Stats
}

func newCounter() *counter { return &counter{s: Stats{ByOperation: map[string]int{}}} }

func (c *counter) request(ctx context.Context, op string, retry bool) {
	gitdata.CountRequest(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.Requests++
	c.s.ByOperation[op]++
	if retry {
		c.s.Retries++
	}
}

func (c *counter) rateLimited() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.RateLimited++
}

func (c *counter) waited(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.Waited += d
}

func (c *counter) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.s
	s.ByOperation = maps.Clone(c.s.ByOperation)
	return s
}
