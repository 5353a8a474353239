package clocktest

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestClockMovesOnlyWhenMoved(t *testing.T) {
	t.Parallel()
	c := New(Start)
	if a, b := c.Now(), c.Now(); !a.Equal(Start) || !b.Equal(Start) {
		t.Fatal("the clock moved by itself")
	}
	c.Advance(time.Minute)
	if err := c.Sleep(t.Context(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(Start); got != time.Minute+2*time.Second {
		t.Errorf("the clock moved %s, want 1m2s", got)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, c.Slept()); diff != "" {
		t.Errorf("Slept (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Sleep(ctx, time.Hour); err == nil || c.Now().Sub(Start) != time.Minute+2*time.Second {
		t.Errorf("Sleep on a done context = %v, and the clock is at %s", err, c.Now())
	}
}

func TestTickingClock(t *testing.T) {
	t.Parallel()
	c := Ticking(Start, time.Second)
	a, b := c.Now(), c.Now()
	if a.Sub(Start) != time.Second || b.Sub(a) != time.Second {
		t.Errorf("readings %s, %s after the start, want 1s and 2s", a.Sub(Start), b.Sub(Start))
	}
}

func TestAfterFunc(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := New(Start)
		fired := make(chan string, 3)
		c.AfterFunc(5*time.Second, func() { fired <- "five" })
		stop := c.AfterFunc(time.Second, func() { fired <- "stopped" })
		if !stop() || stop() {
			t.Error("stop did not report that it cancelled the call, once")
		}
		c.Advance(4 * time.Second)
		synctest.Wait()
		select {
		case f := <-fired:
			t.Fatalf("%s fired before its time", f)
		default:
		}
		c.Advance(time.Second)
		synctest.Wait()
		if f := <-fired; f != "five" {
			t.Errorf("fired %s", f)
		}
	})
}
