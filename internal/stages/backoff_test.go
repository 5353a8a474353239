package stages

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		base time.Duration
		want time.Duration
	}{
		{1, time.Second, time.Second},
		{2, time.Second, 2 * time.Second},
		{5, time.Second, 16 * time.Second},
		{6, time.Second, 30 * time.Second},
		{100, time.Second, 30 * time.Second},
		{1, 20 * time.Second, 20 * time.Second},
		{2, 20 * time.Second, 30 * time.Second},
		{1, 45 * time.Second, 30 * time.Second},
		{0, time.Second, time.Second},
		{3, 0, 0},
	}
	for _, tt := range tests {
		if got := Backoff(tt.n, tt.base); got != tt.want {
			t.Errorf("Backoff(%d, %s) = %s, want %s", tt.n, tt.base, got, tt.want)
		}
	}
}

// crasher is an agent that fails every attempt the way a crashed command
// does.
func crasher() *agenttest.Agent {
	return agenttest.New("b", func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{ExitCode: 1}, agent.Errorf(agent.Systematic, "exit_status", "b exited with status 1")
	})
}

// TestRestartWaitsUnderSynctest measures, on synctest's clock, the time
// between the attempts of an always-crashing stage: restart-backoff
// doubled after every crash and capped at 30s, with the default timer
// sleep (no injected one).
func TestRestartWaitsUnderSynctest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		run := newRun(t, nil, "r1")
		b := crasher()
		a := handoff()
		c := Config{Pipeline: "p", Stages: []string{"a", "b"}, Restarts: 6, RestartBackoff: 5 * time.Second}
		in := input(run, c, func(s string) (executor.Task, error) {
			if s == "a" {
				return executor.Task{Agent: a, Provider: config.ProviderCommand}, nil
			}
			return executor.Task{Agent: b, Provider: config.ProviderCommand}, nil
		}, nil, nil)
		start := time.Now()
		out, err := Run(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		var gaps []time.Duration
		calls := b.Calls()
		for i := 1; i < len(calls); i++ {
			gaps = append(gaps, calls[i].At.Sub(calls[i-1].At))
		}
		want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
		if diff := cmp.Diff(want, gaps); diff != "" {
			t.Errorf("waits between attempts (-want +got):\n%s", diff)
		}
		if got := time.Since(start); got != 125*time.Second {
			t.Errorf("the run took %s, want 125s", got)
		}
		if rec := out.Stages[1]; rec.Status != status.Escalated || rec.ExecMS != 125000 {
			t.Errorf("b = %s in %dms", rec.Status, rec.ExecMS)
		}
	})
}

// TestCancelDuringBackoff: a run cancelled while a crashed stage waits
// for its restart stops at once and says so.
func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		run := newRun(t, nil, "r1")
		b := crasher()
		c := Config{Pipeline: "p", Stages: []string{"a", "b"}, Restarts: 3, RestartBackoff: 10 * time.Second}
		ctx, cancel := context.WithCancel(t.Context())
		in := input(run, c, func(s string) (executor.Task, error) {
			if s == "a" {
				return executor.Task{Agent: handoff(), Provider: config.ProviderCommand}, nil
			}
			return executor.Task{Agent: b, Provider: config.ProviderCommand}, nil
		}, nil, nil)
		in.OnEvent = func(e Event) {
			if e.State == StateCrashed {
				cancel()
			}
		}
		out, err := Run(ctx, in)
		if err == nil || out == nil || out.Stages[1].Status != status.Cancelled || b.Count() != 1 {
			t.Fatalf("err %v, b = %+v after %d attempts", err, out.Stages[1], b.Count())
		}
	})
}

// handoff is a first stage that hands off to the next one.
func handoff() *agenttest.Agent {
	return agenttest.New("a", func(_ context.Context, req agent.Request) (agent.Response, error) {
		return agent.Response{Output: "from a", Signals: []agent.Signal{{Kind: "HANDOFF", Payload: req.NextStage}}}, nil
	})
}
