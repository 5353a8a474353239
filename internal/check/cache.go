package check

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// Verdicts holds the verdicts of one run: of judges, and of the
// deterministic and command checks (by constraint and output SHA-256), so
// an output that several agents produced, or that is checked again, is
// judged or checked once. It is safe for concurrent use: concurrent
// requests for the same verdict share one call. Errors are not cached; the
// next request asks again. It also bounds the run's command checks that
// run at once (a process each).
type Verdicts struct {
	mu       sync.Mutex
	verdicts map[string]Outcome
	flight   singleflight.Group
	hits     atomic.Int64
	judged   atomic.Int64
	commands chan struct{} // one token per running command check
}

// NewVerdicts returns an empty cache. Create one per run and pass it to
// Resolve (or New) through Options.Cache.
func NewVerdicts() *Verdicts {
	return &Verdicts{verdicts: map[string]Outcome{}, commands: make(chan struct{}, maxCommandChecks())}
}

// Hits returns how many verdicts were served without calling a judge or
// running a check.
func (c *Verdicts) Hits() int64 { return c.hits.Load() }

// Judged returns how many times a judge was called or a cached check ran.
func (c *Verdicts) Judged() int64 { return c.judged.Load() }

// commandSlot waits until fewer than maxCommandChecks command checks run
// and returns the function that ends this one's turn.
func (c *Verdicts) commandSlot(ctx context.Context) (func(), error) {
	select {
	case c.commands <- struct{}{}:
		return func() { <-c.commands }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a command check slot: %w", context.Cause(ctx))
	}
}

func (c *Verdicts) lookup(key string) (Outcome, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.verdicts[key]
	return o, ok
}

func (c *Verdicts) store(key string, o Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.verdicts[key] = o
}

// do returns the cached verdict for key, or calls judge once for all
// concurrent callers and caches a successful verdict.
func (c *Verdicts) do(ctx context.Context, key string, judge func() (Outcome, error)) (Outcome, error) {
	if o, ok := c.lookup(key); ok {
		c.hits.Add(1)
		return o, nil
	}
	ran := false // written by the call below, read after its result arrives
	ch := c.flight.DoChan(key, func() (any, error) {
		if o, ok := c.lookup(key); ok {
			return o, nil
		}
		ran = true
		c.judged.Add(1)
		o, err := recovered(judge)
		if err == nil {
			c.store(key, o)
		}
		return o, err
	})
	select {
	case <-ctx.Done():
		return Outcome{}, fmt.Errorf("wait for the judge: %w", context.Cause(ctx))
	case res := <-ch:
		if res.Err != nil {
			return Outcome{}, res.Err
		}
		if !ran {
			c.hits.Add(1)
		}
		return res.Val.(Outcome), nil
	}
}

// check returns the cached verdict for key, or runs check once for all
// concurrent callers and caches a verdict it gave without error. Unlike do
// it waits for the shared call even when ctx ends, so a check stopped by
// ctx reports its own error: a check, unlike a judge, never outlives its
// timeout.
func (c *Verdicts) check(key string, check func() (Outcome, error)) (Outcome, error) {
	if o, ok := c.lookup(key); ok {
		c.hits.Add(1)
		return o, nil
	}
	ran := false
	v, err, _ := c.flight.Do(key, func() (any, error) {
		if o, ok := c.lookup(key); ok {
			return o, nil
		}
		ran = true
		c.judged.Add(1)
		o, err := check()
		if err == nil {
			c.store(key, o)
		}
		return o, err
	})
	if !ran && err == nil {
		c.hits.Add(1)
	}
	o, _ := v.(Outcome)
	return o, err
}

// recovered calls f and turns a panic into an error. singleflight re-panics a
// panic on a goroutine nobody can recover when callers wait on DoChan, which
// would end the whole run; a misbehaving judge must only leave its
// constraint unverified.
func recovered(f func() (Outcome, error)) (o Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("judge panicked: %v", r)
		}
	}()
	return f()
}
