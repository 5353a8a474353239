package check

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// TestVerdictsAcrossARun: the outputs of a run share one cache, so each
// distinct (output, constraint, criterion) is judged once.
func TestVerdictsAcrossARun(t *testing.T) {
	t.Parallel()
	a := ruleJudge("gpt", "polite")
	opts := judgeOpts(a)
	opts.DefaultJudge = "gpt"
	cfg := &config.Config{
		Constraints:     map[string]config.Constraint{"tone": {Check: "judge", Criterion: "The reply is polite.", Hard: true}},
		ConstraintNames: []string{"tone"},
	}
	cs, err := Resolve(cfg, []string{"courteous"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{"a polite reply", "a rude reply", "a polite reply", "a polite reply", "a rude reply"}
	evals := make([]Evaluation, len(outputs))
	var wg sync.WaitGroup
	for i, out := range outputs {
		wg.Go(func() { evals[i] = Evaluate(t.Context(), cs, out) })
	}
	wg.Wait()

	// 2 distinct outputs × 2 constraints = 4 judge calls; the other 6 verdicts come from the cache.
	if got := a.Count(); got != 4 {
		t.Errorf("the judge was called %d times, want 4", got)
	}
	// Resolve made the cache: reach it through a judge.
	cache := cs[0].Checker.(*judgeCheck).cache
	if cache != cs[1].Checker.(*judgeCheck).cache {
		t.Fatal("the constraints of a run do not share one cache")
	}
	if cache.Hits() != 6 || cache.Judged() != 4 {
		t.Errorf("cache hits %d, judged %d; want 6 and 4", cache.Hits(), cache.Judged())
	}
	for i, out := range outputs {
		if want := strings.Contains(out, "polite"); evals[i].Admissible != want {
			t.Errorf("output %q admissible = %v, want %v: %+v", out, evals[i].Admissible, want, evals[i].Verdicts)
		}
	}
}

func TestVerdictsConcurrentSameOutput(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	a := agenttest.New("gpt", func(context.Context, agent.Request) (agent.Response, error) {
		<-release
		return agent.Response{Output: `{"pass": true, "reason": "fine"}`}, nil
	})
	ch := mustNew(t, "c", config.Constraint{Check: "judge", Agent: "gpt"}, judgeOpts(a))
	const n = 8
	var wg sync.WaitGroup
	var passes atomic.Int64
	for range n {
		wg.Go(func() {
			if o, err := ch.Check(t.Context(), "same"); err == nil && o.Pass {
				passes.Add(1)
			}
		})
	}
	close(release)
	wg.Wait()
	cache := ch.(*judgeCheck).cache
	if a.Count() != 1 || cache.Judged() != 1 || cache.Hits() != n-1 || passes.Load() != n {
		t.Errorf("calls %d, judged %d, hits %d, passes %d; want 1, 1, %d, %d", a.Count(), cache.Judged(), cache.Hits(), passes.Load(), n-1, n)
	}
}

func TestVerdictsKey(t *testing.T) {
	t.Parallel()
	a := ruleJudge("gpt", "x")
	opts := judgeOpts(a)
	opts.Cache = NewVerdicts()
	one := mustNew(t, "one", config.Constraint{Check: "judge", Agent: "gpt", Criterion: "A"}, opts)
	sameName := mustNew(t, "one", config.Constraint{Check: "judge", Agent: "gpt", Criterion: "B"}, opts)
	two := mustNew(t, "two", config.Constraint{Check: "judge", Agent: "gpt", Criterion: "A"}, opts)
	for _, step := range []struct {
		ch  Checker
		out string
	}{{one, "x"}, {one, "x"}, {sameName, "x"}, {two, "x"}, {one, "x "}, {two, "x"}} {
		if _, err := step.ch.Check(t.Context(), step.out); err != nil {
			t.Fatal(err)
		}
	}
	if got := [2]int64{opts.Cache.Judged(), opts.Cache.Hits()}; got != [2]int64{4, 2} {
		t.Errorf("judged, hits = %v; want [4 2]", got)
	}
}

// TestVerdictsKeepsNoErrors: a failed judgement is asked again next time,
// and until then the hard constraint fails closed, never passes.
func TestVerdictsKeepsNoErrors(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	a := agenttest.New("gpt", func(context.Context, agent.Request) (agent.Response, error) {
		if n.Add(1) == 1 {
			return agent.Response{}, errors.New("HTTP 500")
		}
		return agent.Response{Output: `{"pass": true, "reason": "ok"}`}, nil
	})
	cs := []Constraint{{Name: "c", Hard: true, Checker: mustNew(t, "c", config.Constraint{Check: "judge", Agent: "gpt"}, judgeOpts(a))}}
	first := Evaluate(t.Context(), cs, "out")
	second := Evaluate(t.Context(), cs, "out")
	third := Evaluate(t.Context(), cs, "out")
	want := []status.Status{status.Failed, status.Passed, status.Passed}
	got := []status.Status{first.Verdicts[0].Status, second.Verdicts[0].Status, third.Verdicts[0].Status}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if a.Count() != 2 {
		t.Errorf("the judge was called %d times, want 2", a.Count())
	}
}

// TestJudgePanicDoesNotCrash: a panicking judge, even with other checks
// waiting on the same verdict, only fails its hard constraint closed.
func TestJudgePanicDoesNotCrash(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	a := agenttest.New("gpt", func(context.Context, agent.Request) (agent.Response, error) {
		<-release
		panic("provider bug")
	})
	ch := mustNew(t, "c", config.Constraint{Check: "judge", Agent: "gpt"}, judgeOpts(a))
	cs := []Constraint{{Name: "c", Hard: true, Checker: ch}}
	evals := make([]Evaluation, 4)
	var wg sync.WaitGroup
	for i := range evals {
		wg.Go(func() { evals[i] = Evaluate(t.Context(), cs, "same output") })
	}
	close(release)
	wg.Wait()
	for _, ev := range evals {
		v := ev.Verdicts[0]
		if v.Status != status.Failed || !strings.Contains(v.Reason, "judge panicked: provider bug") || ev.Admissible {
			t.Errorf("verdict %+v admissible %v; want failed closed by a panic, not admissible", v, ev.Admissible)
		}
	}
}

func TestVerdictsWaiterGivesUp(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{})
	a := agenttest.New("gpt", func(context.Context, agent.Request) (agent.Response, error) {
		close(started)
		<-release
		return agent.Response{Output: `{"pass": true}`}, nil
	})
	ch := mustNew(t, "c", config.Constraint{Check: "judge", Agent: "gpt"}, judgeOpts(a))
	done := make(chan error, 1)
	go func() { _, err := ch.Check(t.Context(), "x"); done <- err }()
	<-started
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ch.Check(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled waiter got %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the leader got %v", err)
	}
}
