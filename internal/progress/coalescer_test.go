package progress

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

// recorder is a publish function that records what it was given.
type recorder struct {
	delay time.Duration

	mu       sync.Mutex
	bodies   []string
	at       []time.Duration // since start
	start    time.Time
	fail     map[string]error
	panicOn  string
	inflight atomic.Int32
	overlap  atomic.Bool
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), fail: map[string]error{}}
}

func (r *recorder) publish(ctx context.Context, body string) error {
	if r.inflight.Add(1) > 1 {
		r.overlap.Store(true)
	}
	defer r.inflight.Add(-1)
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if body == r.panicOn {
		panic("publisher exploded")
	}
	r.bodies = append(r.bodies, body)
	r.at = append(r.at, time.Since(r.start))
	return r.fail[body]
}

func (r *recorder) got() ([]string, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...), append([]time.Duration(nil), r.at...)
}

func (r *recorder) check(t *testing.T, wantBodies []string, wantAt []time.Duration) {
	t.Helper()
	synctest.Wait()
	bodies, at := r.got()
	if diff := cmp.Diff(wantBodies, bodies); diff != "" {
		t.Fatalf("published bodies (-want +got):\n%s", diff)
	}
	if wantAt != nil {
		if diff := cmp.Diff(wantAt, at); diff != "" {
			t.Fatalf("publish times (-want +got):\n%s", diff)
		}
	}
}

func TestCoalescerQuietWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		c := NewCoalescer(t.Context(), 5*time.Second, nil, r.publish)

		c.Update("a")
		r.check(t, []string{"a"}, []time.Duration{0})

		time.Sleep(time.Second)
		c.Update("b")
		c.Update("c")
		r.check(t, []string{"a"}, nil)

		time.Sleep(3500 * time.Millisecond)
		r.check(t, []string{"a"}, nil)

		time.Sleep(time.Second) // the window ended at 5s: the latest body wins
		r.check(t, []string{"a", "c"}, []time.Duration{0, 5 * time.Second})

		c.Update("c") // unchanged: not published again
		time.Sleep(10 * time.Second)
		r.check(t, []string{"a", "c"}, nil)

		c.Update("d") // the window has long passed: published at once
		r.check(t, []string{"a", "c", "d"}, []time.Duration{0, 5 * time.Second, 15500 * time.Millisecond})

		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, []string{"a", "c", "d"}, nil)
	})
}

func TestCoalescerFlushPublishesNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		c := NewCoalescer(t.Context(), time.Minute, nil, r.publish)
		c.Update("a")
		time.Sleep(time.Second)
		c.Update("b")
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, []string{"a", "b"}, []time.Duration{0, time.Second})
		time.Sleep(2 * time.Minute) // the stopped timer publishes nothing
		r.check(t, []string{"a", "b"}, nil)
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, []string{"a", "b"}, nil)
	})
}

func TestCoalescerFlushWithoutUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		c := NewCoalescer(t.Context(), time.Second, nil, r.publish)
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, nil, nil)
	})
}

func TestCoalescerKeepsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		errDown := errors.New("github is down")
		r.fail["b"] = errDown
		c := NewCoalescer(t.Context(), 5*time.Second, nil, r.publish)
		c.Update("a")
		time.Sleep(5 * time.Second)
		c.Update("b") // published in the background, fails
		r.check(t, []string{"a", "b"}, nil)

		err := c.Flush(t.Context()) // tries b once more, fails again
		if !errors.Is(err, errDown) || strings.Count(err.Error(), "github is down") != 2 {
			t.Fatalf("Flush = %v, want both failures", err)
		}
		r.check(t, []string{"a", "b", "b"}, nil)

		delete(r.fail, "b")
		if err := c.Flush(t.Context()); err != nil { // errors were handed over; b now succeeds
			t.Fatalf("second Flush = %v", err)
		}
		r.check(t, []string{"a", "b", "b", "b"}, nil)
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, []string{"a", "b", "b", "b"}, nil)
	})
}

func TestCoalescerBoundsKeptErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCoalescer(t.Context(), time.Second, nil, func(context.Context, string) error {
			return errors.New("nope")
		})
		for i := range 30 {
			c.Update(fmt.Sprint(i))
			time.Sleep(time.Second)
		}
		err := c.Flush(t.Context())
		if err == nil || strings.Count(err.Error(), "nope") != maxKeptErrors || !strings.Contains(err.Error(), "more publish errors") {
			t.Fatalf("Flush = %v", err)
		}
	})
}

func TestCoalescerSurvivesPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.panicOn = "boom"
		c := NewCoalescer(t.Context(), time.Second, nil, r.publish)
		c.Update("boom")
		synctest.Wait()
		err := c.Flush(t.Context())
		if err == nil || !strings.Contains(err.Error(), "panic: publisher exploded") {
			t.Fatalf("Flush = %v, want the panic as an error", err)
		}
	})
}

func TestCoalescerWaitsForInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay = 2 * time.Second
		c := NewCoalescer(t.Context(), 0, nil, r.publish)
		c.Update("a")
		c.Update("b")
		start := time.Now()
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != 4*time.Second {
			t.Errorf("Flush took %v, want 4s: wait for a, then publish b", took)
		}
		r.check(t, []string{"a", "b"}, []time.Duration{2 * time.Second, 4 * time.Second})
		if r.overlap.Load() {
			t.Error("two publishes overlapped")
		}
	})
}

func TestCoalescerFlushContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay = 10 * time.Second
		c := NewCoalescer(t.Context(), 0, nil, r.publish)
		c.Update("a")
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := c.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Flush = %v, want the deadline", err)
		}
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.check(t, []string{"a"}, []time.Duration{10 * time.Second})
	})
}

func TestCoalescerConcurrentUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay = 100 * time.Millisecond
		c := NewCoalescer(t.Context(), time.Second, nil, r.publish)
		var wg sync.WaitGroup
		for g := range 20 {
			wg.Go(func() {
				for i := range 50 {
					c.Update(fmt.Sprintf("g%d-%d", g, i))
					time.Sleep(37 * time.Millisecond)
				}
			})
		}
		wg.Wait()
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		bodies, at := r.got()
		c.mu.Lock()
		latest := c.latest
		c.mu.Unlock()
		if len(bodies) == 0 || bodies[len(bodies)-1] != latest {
			t.Fatalf("last published %q, latest update %q", bodies[len(bodies)-1:], latest)
		}
		for i := 1; i < len(at)-1; i++ { // the last one is Flush's, which may come early
			if at[i]-at[i-1] < time.Second-r.delay {
				t.Errorf("publishes %d and %d only %v apart", i-1, i, at[i]-at[i-1])
			}
		}
		if r.overlap.Load() {
			t.Error("two publishes overlapped")
		}
		if len(bodies) > 5 {
			t.Errorf("%d publishes for 1000 updates in about 2s", len(bodies))
		}
	})
}

// TestCoalescerWithInjectedClock: the Coalescer keeps time by its Clock
// alone. Inside a bubble, synctest.Wait lets every goroutine the clock
// started finish, so "nothing was published" is a fact, not a guess.
func TestCoalescerWithInjectedClock(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clock := clocktest.New(clocktest.Start)
		published := make(chan string, 10)
		c := NewCoalescer(t.Context(), 5*time.Second, clock, func(_ context.Context, body string) error {
			published <- body
			return nil
		})
		// next is what was published since the last call, if anything,
		// once everything that could publish has run.
		next := func() string {
			synctest.Wait()
			select {
			case got := <-published:
				return got
			default:
				return ""
			}
		}
		c.Update("a")
		if got := next(); got != "a" {
			t.Fatalf("published %q, want the first body at once", got)
		}
		c.Update("b")
		clock.Advance(4 * time.Second)
		if got := next(); got != "" {
			t.Fatalf("%q published inside the quiet window", got)
		}
		clock.Advance(time.Second)
		if got := next(); got != "b" {
			t.Fatalf("published %q, want %q when the window ends", got, "b")
		}
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCoalescerRunOfAMinute plays the state changes of a labelled-issue
// run whose four agents finish over 60 s (each finish a burst of three
// changes) through the run's Coalescer: the comment is edited at the
// start, once per burst, and once at the end, never twice in 5 s.
func TestCoalescerRunOfAMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		c := NewRunCoalescer(t.Context(), nil, r.publish)
		body := 0
		update := func() { body++; c.Update(fmt.Sprint(body)) }

		update() // 1: every agent queued
		for range 4 {
			update() // 2–5: the agents start
		}
		for range 4 {
			time.Sleep(15*time.Second - time.Since(r.start)%(15*time.Second))
			for range 3 { // retrying, succeeded, checked
				update()
				time.Sleep(100 * time.Millisecond)
			}
		}
		update() // the final body: score table, π*, ledger hash
		if err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		bodies, at := r.got()
		// the agents starting, three finishes, the fourth finish
		// collapsed into the final body by Flush.
		want := []string{"5", "8", "11", "14", "18"}
		if diff := cmp.Diff(want, bodies); diff != "" {
			t.Errorf("published bodies (-want +got):\n%s", diff)
		}
		if at[0] != BurstWindow {
			t.Errorf("first publish at %s, want %s (the end of the first burst)", at[0], BurstWindow)
		}
		for i := 1; i < len(at)-1; i++ { // the final Flush publishes at once
			if gap := at[i] - at[i-1]; gap < MinEditInterval {
				t.Errorf("publishes %d and %d are %s apart, want at least %s", i, i+1, gap, MinEditInterval)
			}
		}
	})
}
