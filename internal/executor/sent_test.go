package executor

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/status"
)

// TestSentIsHeardWhenTheAgentSendsItsWork: Options.Sent hears a result's
// name when its agent calls Request.Sent, not before (the agent looks
// first), once however often the agent calls it; an agent that never
// calls it is never heard.
func TestSentIsHeardWhenTheAgentSendsItsWork(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	heard := map[string]int{}
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return heard[name]
	}
	sender := func(name string) *agenttest.Agent {
		return agenttest.New(name, func(_ context.Context, req agent.Request) (agent.Response, error) {
			if n := count(name); n != 0 {
				return agent.Response{}, errors.New("heard before the agent sent its work")
			}
			req.Sent()
			req.Sent()
			if n := count(name); n != 1 {
				return agent.Response{}, errors.New("not heard once when the agent sent its work")
			}
			return agent.Response{Output: "ok"}, nil
		})
	}
	tasks := []Task{{Agent: sender("a")}, {Agent: sender("b")}, {Agent: agenttest.New("quiet", agenttest.Answer("ok"))}}
	results, err := Run(t.Context(), Options{Tasks: tasks, Sent: func(name string) {
		mu.Lock()
		defer mu.Unlock()
		heard[name]++
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status != status.Succeeded {
			t.Errorf("%s: %s %s", r.Agent, r.Status, r.Error)
		}
	}
	if want := map[string]int{"a": 1, "b": 1}; !maps.Equal(heard, want) {
		t.Errorf("Sent heard %v, want %v", heard, want)
	}
}

// TestLaunchedOnceTheFirstWaveSent: Options.Launched is called once every
// agent that starts at once has sent its work or ended, while the
// agents that sent still wait for their answers, and not before. The
// task beyond MaxParallel, which starts in the slot the quiet agent
// leaves, does not count: it sends before b does (b waits for it), so
// were it counted, Launched would come before b sent.
func TestLaunchedOnceTheFirstWaveSent(t *testing.T) {
	t.Parallel()
	launched, lateSent := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	var early sync.Map // wave members that found Launched called before they sent
	sender := func(name string, before, after func()) *agenttest.Agent {
		return agenttest.New(name, func(ctx context.Context, req agent.Request) (agent.Response, error) {
			before()
			select {
			case <-launched:
				early.Store(name, true)
			default:
			}
			req.Sent()
			after()
			select {
			case <-launched:
			case <-ctx.Done():
				return agent.Response{}, ctx.Err()
			}
			return agent.Response{Output: "ok"}, nil
		})
	}
	nothing := func() {}
	tasks := []Task{
		{Agent: sender("a", nothing, nothing)},
		{Agent: sender("b", func() { <-lateSent }, nothing)},
		{Agent: agenttest.New("quiet", agenttest.Answer("ok"))},
		{Agent: sender("late", nothing, func() { close(lateSent) })},
	}
	results, err := Run(t.Context(), Options{Tasks: tasks, MaxParallel: 3, Launched: func() {
		calls.Add(1)
		close(launched)
	}})
	if err != nil {
		t.Fatal(err)
	}
	var ok []string
	for _, r := range results {
		if r.Status == status.Succeeded {
			ok = append(ok, r.Agent)
		}
	}
	if want := []string{"a", "b", "quiet", "late"}; !slices.Equal(ok, want) {
		t.Errorf("succeeded %v, want %v", ok, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("Launched was called %d times, want once", n)
	}
	for _, name := range []string{"a", "b"} {
		if _, found := early.Load(name); found {
			t.Errorf("%s found Launched called before it sent its work", name)
		}
	}
}

// TestLaunchedWithoutAgentsThatSend: agents that never call Request.Sent
// still end the wave when they end, and a run without tasks calls
// Launched too.
func TestLaunchedWithoutAgentsThatSend(t *testing.T) {
	t.Parallel()
	for _, tasks := range [][]Task{nil, {{Agent: agenttest.New("quiet", agenttest.Answer("ok"))}}} {
		var calls atomic.Int32
		if _, err := Run(t.Context(), Options{Tasks: tasks, Launched: func() { calls.Add(1) }}); err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("%d tasks: Launched was called %d times, want once", len(tasks), n)
		}
	}
}
