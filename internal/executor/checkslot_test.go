package executor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/status"
)

// waitCheck passes an output once release is closed.
type waitCheck struct{ release <-chan struct{} }

func (w waitCheck) Check(ctx context.Context, _ string) (check.Outcome, error) {
	select {
	case <-w.release:
		return check.Outcome{Pass: true}, nil
	case <-ctx.Done():
		return check.Outcome{}, ctx.Err()
	}
}

// TestChecksOutsideTheSlot: with one slot, the first agent's checks wait
// for the second agent to start; that works only because checks do not
// hold the agent's slot (inside it, the run would deadlock, which the
// bubble reports).
func TestChecksOutsideTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		secondStarted := make(chan struct{})
		tasks := []Task{
			{Agent: agenttest.New("first", func(context.Context, agent.Request) (agent.Response, error) {
				return agent.Response{Output: "one"}, nil
			})},
			{Agent: agenttest.New("second", func(context.Context, agent.Request) (agent.Response, error) {
				close(secondStarted)
				return agent.Response{Output: "two"}, nil
			})},
		}
		var rc recorder
		results, err := Run(t.Context(), Options{
			Tasks: tasks, MaxParallel: 1, OnEvent: rc.event,
			Constraints: []check.Constraint{{Name: "waits", Hard: true, Checker: waitCheck{secondStarted}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if r.Status != status.Succeeded || !r.Checks.Admissible {
				t.Errorf("%s: %s, admissible %v, %+v", r.Agent, r.Status, r.Checks.Admissible, r.Checks.Verdicts)
			}
		}
		// Each agent's final event comes once its checks are done.
		for _, ev := range rc.events {
			if ev.Result != nil && ev.Result.Checks.Verdicts == nil {
				t.Errorf("%s: final event before its checks", ev.Agent)
			}
		}
	})
}

// TestLargeResultsSunkOneAtATime: results with large outputs in memory are
// handed to the Sink one at a time (each encoding copies the output), small
// ones and large ones on disk (streamed by EncodeJSON) all at once.
func TestLargeResultsSunkOneAtATime(t *testing.T) {
	tests := []struct {
		name string
		size int
		disk bool // the output is spooled to a file
		want int  // sinks running at once
	}{
		{"large", largeOutput, false, 1},
		{"small", 100, false, 3},
		{"large on disk", largeOutput, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				output := strings.Repeat("x", tc.size)
				var tasks []Task
				for i := range 3 {
					resp := agent.Response{Output: output}
					if tc.disk {
						resp = agent.Response{Spool: spooled(t, output)}
					}
					tasks = append(tasks, Task{Agent: agenttest.New(fmt.Sprint("a", i), func(context.Context, agent.Request) (agent.Response, error) {
						return resp, nil
					})})
				}
				release := make(chan struct{})
				var mu sync.Mutex
				now, most := 0, 0
				sink := func(*Result) error {
					mu.Lock()
					now++
					most = max(most, now)
					mu.Unlock()
					<-release
					mu.Lock()
					now--
					mu.Unlock()
					return nil
				}
				done := make(chan error)
				go func() {
					_, err := Run(t.Context(), Options{Tasks: tasks, Sink: sink})
					done <- err
				}()
				synctest.Wait() // every agent is done and waits in or for the Sink
				mu.Lock()
				got := now
				mu.Unlock()
				close(release)
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if got != tc.want || most != tc.want {
					t.Errorf("%d sinks ran at once (at most %d), want %d", got, most, tc.want)
				}
			})
		})
	}
}
