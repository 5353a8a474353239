package escalation

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Defaults of `optr handle`.
const (
	DefaultCoordinationDir = ".coordination"
	DefaultInterval        = 30 * time.Second
	DefaultTimeout         = 600 * time.Second
)

// errWatchOver ends Watch when its timeout has passed.
var errWatchOver = errors.New("watch timeout reached")

// Watch runs Handle on dir every interval until timeout has passed (no
// limit when timeout ≤ 0) or ctx ends. Reaching the timeout is a normal
// end (nil); a cancelled ctx returns its cause; a Handle error stops the
// watch and is returned.
func Watch(ctx context.Context, dir string, interval, timeout time.Duration, opts HandleOptions) error {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errWatchOver)
		defer cancel()
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	log := &logger{w: opts.Stderr, now: now}
	log.printf("watching %s every %s (timeout %s)", dir, interval, timeout)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := Handle(ctx, dir, opts); err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errWatchOver) {
				log.printf("watched %s for %s: done", dir, timeout)
				return nil
			}
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// CommandOptions are the settings of `optr handle`.
type CommandOptions struct {
	// Dir is --coordination-dir (default DefaultCoordinationDir).
	Dir string
	// Watch is --watch: poll instead of handling once.
	Watch bool
	// Interval is --interval (default DefaultInterval).
	Interval time.Duration
	// Timeout is --timeout: how long --watch polls (default
	// DefaultTimeout). A one-shot run ignores it.
	Timeout time.Duration
	// Handle configures each pass.
	Handle HandleOptions
}

// Command is `optr handle` without its flag parsing: one pass of Handle by
// default, Watch with --watch. It returns nil when an escalation was
// handled or there was nothing to do (exit 0), and an error when something
// could not be read or written.
func Command(ctx context.Context, o CommandOptions) error {
	if o.Interval < 0 || o.Timeout < 0 {
		return fmt.Errorf("--interval and --timeout must not be negative (got %s and %s)", o.Interval, o.Timeout)
	}
	dir := o.Dir
	if dir == "" {
		dir = DefaultCoordinationDir
	}
	if !o.Watch {
		_, err := Handle(ctx, dir, o.Handle)
		return err
	}
	interval, timeout := o.Interval, o.Timeout
	if interval == 0 {
		interval = DefaultInterval
	}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return Watch(ctx, dir, interval, timeout, o.Handle)
}
