package clock

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleepWaitsTheWholeDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(t.Context(), 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Fatalf("slept %v, want 3s", got)
		}
	})
}

func TestSleepEndsWithTheCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := errors.New("the run was aborted")
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(time.Second, func() { cancel(stop) })
		start := time.Now()
		if err := Sleep(ctx, time.Hour); !errors.Is(err, stop) {
			t.Fatalf("err %v, want the cause", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Fatalf("ended after %v, want 1s", got)
		}
		if err := Sleep(ctx, 0); !errors.Is(err, stop) {
			t.Fatalf("a zero sleep on a done context: %v", err)
		}
	})
	if err := Sleep(t.Context(), 0); err != nil {
		t.Fatalf("a zero sleep on a live context: %v", err)
	}
}
