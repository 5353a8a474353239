package clocktest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Start is the time a Clock starts at unless the test says otherwise.
var Start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Clock is a clock that moves only by Advance, Sleep, or — when it ticks —
// by being read. It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	tick   time.Duration
	sleeps []time.Duration
	timers []*timer
}

type timer struct {
	at      time.Time
	f       func()
	stopped bool
}

// New returns a clock standing at start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Ticking returns a clock standing at start that moves by step each time
// it is read, so that every reading is later than the one before.
func Ticking(start time.Time, step time.Duration) *Clock {
	return &Clock{now: start, tick: step}
}

// Now returns the clock's time (first moving it on by its step, when it
// ticks).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	c.now = c.now.Add(c.tick)
	now := c.now
	c.mu.Unlock()
	return now
}

// Advance moves the clock on by d and starts, each in its own goroutine as
// time.AfterFunc does, the functions whose time has come.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			t.stopped = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// Sleep returns at once: it notes d (Slept) and advances the clock by d,
// or returns ctx's error when ctx is already done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.Advance(d)
	return nil
}

// Slept are the durations Sleep was asked for, in order.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// AfterFunc calls f in its own goroutine once the clock has been advanced
// by d, and returns a function that cancels the call, reporting whether it
// did.
func (c *Clock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}
