package progress

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// maxKeptErrors bounds the publish errors a Coalescer keeps for Flush.
const maxKeptErrors = 10

// MinEditInterval is the quiet window of the progress comment: at most one
// edit per 5 s. A run then makes at most its first edit, one edit per burst
// of agent state changes, and the final one (Flush), however long it runs
// and however many agents change state at once.
const MinEditInterval = 5 * time.Second

// BurstWindow is how long a progress comment waits after the first change
// of a burst (agents finishing together, an agent's retry, success and
// verdicts in quick succession) before it is edited, so that the burst
// costs one edit, not two.
const BurstWindow = time.Second

// NewRunCoalescer returns the Coalescer of a run's progress comment: at
// most one edit per MinEditInterval, each burst of changes (the first one
// too: every agent starting) collapsed over BurstWindow. A run whose
// agents finish over a minute then costs the comment's creation, one edit
// per burst and the final edit; a last burst that the final body follows
// within BurstWindow costs nothing of its own. A nil clock is the
// SystemClock.
func NewRunCoalescer(ctx context.Context, clock Clock, publish func(ctx context.Context, body string) error) *Coalescer {
	c := NewCoalescer(ctx, MinEditInterval, clock, publish)
	c.settle = BurstWindow
	return c
}

// Coalescer turns a stream of progress bodies into at most one publish per
// interval: the progress comment is edited as agents finish, but GitHub
// limits content writes to about 80 a minute. The latest body wins; one
// that arrives in the quiet window is published when the window ends;
// publishes never overlap, so an older body can never land after a newer
// one; a body equal to the last one published is not published again.
//
// A Coalescer is safe for concurrent use. Between publishes it holds at
// most one timer and no goroutine; after Flush returns it holds neither
// (unless Update is called again).
type Coalescer struct {
	ctx      context.Context
	interval time.Duration
	settle   time.Duration // each publish waits at least this long for its burst to end
	clock    Clock
	publish  func(ctx context.Context, body string) error

	mu         sync.Mutex
	latest     string // the last body given to Update
	hasLatest  bool
	pending    bool   // latest has not been handed to a publish yet
	published  string // the last body published without error
	hasPublish bool
	lastStart  time.Time // when the last publish started
	started    bool
	inFlight   chan struct{} // closed when the running publish ends; nil when none
	stopTimer  func() bool   // cancels the timer that ends the quiet window
	timerGen   uint64
	flushing   bool // Flush publishes; kick leaves it to Flush
	errs       []error
	dropped    int
}

// NewCoalescer returns a Coalescer that calls publish at most once per
// minInterval. Background publishes run with ctx, the run's context (they
// happen after Update has returned, so they cannot use a caller's); Flush
// publishes with its own. A nil clock is the SystemClock.
func NewCoalescer(ctx context.Context, minInterval time.Duration, clock Clock, publish func(ctx context.Context, body string) error) *Coalescer {
	if clock == nil {
		clock = SystemClock{}
	}
	return &Coalescer{ctx: ctx, interval: minInterval, clock: clock, publish: publish}
}

// Update records body as the latest and publishes it now if the quiet
// window has passed, else when it ends. It does not wait for the publish.
func (c *Coalescer) Update(body string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latest, c.hasLatest, c.pending = body, true, true
	c.kick()
}

// kick starts a publish of the pending body, or a timer for the end of the
// quiet window. c.mu is held.
func (c *Coalescer) kick() { c.kickWhen(false) }

// kickWhen is kick; due says the quiet window (and burst window) just
// ended, so the pending body is published without waiting again.
func (c *Coalescer) kickWhen(due bool) {
	if !c.pending || c.inFlight != nil || c.stopTimer != nil || c.flushing {
		return // the running publish, the timer or Flush will see to it
	}
	if c.hasPublish && c.latest == c.published {
		c.pending = false
		return
	}
	var wait time.Duration
	if c.started {
		wait = c.interval - c.clock.Now().Sub(c.lastStart)
	}
	wait = max(wait, c.settle)
	if !due && wait > 0 {
		c.timerGen++
		gen := c.timerGen
		c.stopTimer = c.clock.AfterFunc(wait, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if gen != c.timerGen {
				return // stopped by Flush
			}
			c.stopTimer = nil
			c.kickWhen(true)
		})
		return
	}
	body, done := c.begin()
	go func() {
		err := c.call(c.ctx, body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.end(body, done, err)
		c.kick()
	}()
}

// begin marks the latest body as being published. c.mu is held.
func (c *Coalescer) begin() (string, chan struct{}) {
	c.pending = false
	c.lastStart, c.started = c.clock.Now(), true
	done := make(chan struct{})
	c.inFlight = done
	return c.latest, done
}

// end records the outcome of a publish begin started. c.mu is held.
func (c *Coalescer) end(body string, done chan struct{}, err error) {
	c.inFlight = nil
	close(done)
	if err != nil {
		if len(c.errs) < maxKeptErrors {
			c.errs = append(c.errs, err)
		} else {
			c.dropped++
		}
		return
	}
	c.published, c.hasPublish = body, true
}

// call runs publish, turning a panic into an error.
func (c *Coalescer) call(ctx context.Context, body string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("publish the progress comment: panic: %v", r)
		}
	}()
	return c.publish(ctx, body)
}

// Flush waits for a publish in flight, then publishes the latest body now,
// without waiting for the quiet window, unless it is already published
// (a body whose publish failed counts as not published, so Flush tries it
// again, once). It returns every publish error since the last Flush,
// joined, or ctx's error if ctx ends while it waits.
func (c *Coalescer) Flush(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushing = true
	defer func() { c.flushing = false }()
	c.timerGen++ // a timer firing right now does nothing
	if c.stopTimer != nil {
		c.stopTimer()
		c.stopTimer = nil
	}
	for {
		if done := c.inFlight; done != nil {
			c.mu.Unlock()
			select {
			case <-done:
				c.mu.Lock()
				continue
			case <-ctx.Done():
				c.mu.Lock()
				return fmt.Errorf("wait for the progress comment to be published: %w", ctx.Err())
			}
		}
		if !c.hasLatest || (c.hasPublish && c.latest == c.published) {
			break
		}
		body, done := c.begin()
		c.mu.Unlock()
		err := c.call(ctx, body)
		c.mu.Lock()
		c.end(body, done, err)
		if err != nil {
			break // reported below; the next Flush tries again
		}
	}
	c.pending = false
	errs := c.errs
	if c.dropped > 0 {
		errs = append(errs, fmt.Errorf("and %d more publish errors", c.dropped))
	}
	c.errs, c.dropped = nil, 0
	return errors.Join(errs...)
}
