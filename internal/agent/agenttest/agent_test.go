package agenttest

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

func TestAgentRecordsItsAttempts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := New("a", Answer("hi"))
		var _ agent.Agent = a
		start := time.Now()
		for _, intent := range []string{"one", "two"} {
			resp, err := a.Run(t.Context(), agent.Request{Intent: intent})
			if err != nil || resp.Output != "hi" {
				t.Fatalf("Run = %+v, %v", resp, err)
			}
			time.Sleep(time.Second)
		}
		calls := a.Calls()
		if a.Name() != "a" || a.Count() != 2 || len(calls) != 2 || calls[1].Req.Intent != "two" || calls[1].At.Sub(start) != time.Second {
			t.Errorf("calls = %+v", calls)
		}
		if r := a.Requests(); len(r) != 2 || r[0].Intent != "one" {
			t.Errorf("Requests = %+v", r)
		}
	})
}

func TestHangEndsWithItsContext(t *testing.T) {
	t.Parallel()
	cause := errors.New("stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	if _, err := New("h", Hang).Run(ctx, agent.Request{}); !errors.Is(err, cause) {
		t.Errorf("Hang = %v, want the context's cause", err)
	}
}

// fakeTB notes failures instead of failing.
type fakeTB struct {
	testing.TB
	failed int
}

func (f *fakeTB) Errorf(string, ...any) { f.failed++ }

func TestStepsPlaysInOrderAndFailsBeyond(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{TB: t}
	a := New("s", Steps(tb, Answer("first"), Answer("second")))
	for _, want := range []string{"first", "second"} {
		if resp, _ := a.Run(t.Context(), agent.Request{}); resp.Output != want {
			t.Errorf("Run = %q, want %q", resp.Output, want)
		}
	}
	_, err := a.Run(t.Context(), agent.Request{})
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Class != agent.Fatal || tb.failed != 1 {
		t.Errorf("third attempt: %v, %d failures noted; want a fatal error and one failure", err, tb.failed)
	}
}
