package recovery

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

// faultScript decides an agent's attempts (attempt): each fails with
// probability failP, with a fault drawn at random from every class
// recovery handles. It is used by one Run at a time (the race detector
// would tell otherwise).
type faultScript struct {
	name  string
	run   int
	failP float64
	rnd   *rand.Rand

	calls      int
	retryAfter []time.Duration // per attempt, what the fault asked for
}

func (f *faultScript) attempt(ctx context.Context, req agent.Request) (agent.Response, error) {
	f.calls++
	out := agent.Response{
		Output: fmt.Sprintf("%s run %d attempt %d hint %q", f.name, f.run, f.calls, req.Hint),
		Usage:  agent.Usage{InputTokens: 100, OutputTokens: int64(f.calls)},
	}
	f.retryAfter = append(f.retryAfter, 0)
	if f.rnd.Float64() >= f.failP {
		return out, nil
	}
	switch f.rnd.IntN(5) {
	case 0: // 429, mostly a few seconds, sometimes beyond max-total
		ra := time.Duration(1+f.rnd.IntN(5)) * time.Second
		if f.rnd.IntN(10) == 0 {
			ra = 20 * time.Minute
		}
		f.retryAfter[f.calls-1] = ra
		return out, rateLimited(ra)
	case 1:
		return out, unavailable()
	case 2:
		out.Stderr = "traceback: cannot parse"
		return out, unusable()
	case 3:
		out.Output = "REJECT " + out.Output // accept fails it
		return out, nil
	default:
		return out, unauthorized()
	}
}

func (f *faultScript) accept(_ context.Context, r agent.Response) error {
	if strings.HasPrefix(r.Output, "REJECT") {
		return errors.New("constraint no-reject failed")
	}
	return nil
}

// hashAnalysis is the reply of one analyzer shared by every agent: its
// answer is a function of the prompt, so the suite stays deterministic
// however the goroutines are scheduled.
func hashAnalysis(_ context.Context, req agent.Request) (agent.Response, error) {
	f := fnv.New64a()
	f.Write([]byte(req.Intent))
	v := f.Sum64()
	u := agent.Usage{InputTokens: 50, OutputTokens: 10}
	switch v % 10 {
	case 7:
		return agent.Response{Output: `{"action":"escalate","reasoning":"hopeless"}`, Usage: u}, nil
	case 8:
		return agent.Response{Output: "Let me think about this...", Usage: u}, nil
	case 9:
		return agent.Response{Usage: u}, unavailable()
	}
	return agent.Response{Output: fmt.Sprintf(`{"action":"alternative","hint":"hint-%x"}`, v%4096), Usage: u}, nil
}

func TestFaultSuite(t *testing.T) {
	t.Parallel()
	const runs, agents, failP = 50, 4, 0.3
	policy := Policy{Attempts: 3, MaxAlternatives: 2, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxTotal: 10 * time.Minute}
	analyzer := agenttest.New("analyzer", hashAnalysis)

	type result struct {
		agent *faultScript
		clock *clocktest.Clock
		out   Outcome
	}
	results := make([]result, runs*agents)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(20250301, uint64(i)))
			a := &faultScript{name: fmt.Sprintf("agent-%d", i%agents), run: i / agents, failP: failP, rnd: rnd}
			p := policy
			p.Clock, p.Rand, p.Analyzer = clocktest.New(clocktest.Start), rnd.Float64, analyzer
			out := p.Run(t.Context(), agenttest.New(a.name, a.attempt), agent.Request{Intent: fmt.Sprintf("task of run %d", i/agents)}, a.accept)
			results[i] = result{agent: a, clock: p.Clock.(*clocktest.Clock), out: out}
		})
	}
	wg.Wait()

	var firstTry, afterRetries, afterAlternatives int
	escalated := map[string]int{}
	attempts := map[int]int{}
	outputs := map[string]bool{}
	var analyses int64
	for i, r := range results {
		out, a := r.out, r.agent
		name := fmt.Sprintf("run %d %s", a.run, a.name)
		checkInvariants(t, policy, out)
		attempts[len(out.Attempts)]++
		if len(out.Attempts) != a.calls {
			t.Errorf("%s: %d attempts recorded, the agent ran %d times", name, len(out.Attempts), a.calls)
			continue
		}
		transient, alternatives := 0, 0
		var delays []int64
		for j, at := range out.Attempts {
			if at.Class == agent.Transient {
				transient++
			}
			if at.Outcome == OutcomeAlternative {
				alternatives++
			}
			if at.Analysis != nil {
				analyses++
			}
			if at.Outcome == OutcomeRetry {
				ra := a.retryAfter[j]
				if at.DelayMS < ra.Milliseconds() || at.DelayMS > max(policy.MaxDelay, ra).Milliseconds() {
					t.Errorf("%s attempt %d: waited %dms, Retry-After %s, max delay %s", name, at.N, at.DelayMS, ra, policy.MaxDelay)
				}
				delays = append(delays, at.DelayMS)
			}
		}
		var slept []int64
		for _, d := range r.clock.Slept() {
			slept = append(slept, d.Milliseconds())
		}
		if diff := cmp.Diff(slept, delays); diff != "" {
			t.Errorf("%s: the waits the attempts record are not the waits slept (-slept +recorded):\n%s", name, diff)
		}
		if transient > policy.Attempts || alternatives > policy.MaxAlternatives {
			t.Errorf("%s: %d transient failures, %d alternatives: over the policy's bounds", name, transient, alternatives)
		}
		last := out.Attempts[len(out.Attempts)-1]
		switch out.Status {
		case OutcomeSucceeded:
			want := fmt.Sprintf("%s run %d attempt %d hint %q", a.name, a.run, last.N, last.Hint)
			if out.Response.Output != want {
				t.Errorf("%s: result %q, want %q", name, out.Response.Output, want)
			}
			switch {
			case len(out.Attempts) == 1:
				firstTry++
			case alternatives == 0:
				afterRetries++
			default:
				afterAlternatives++
			}
		case OutcomeEscalated:
			escalated[out.EscalationReason]++
			if !consistentReason(last, out.EscalationReason) {
				t.Errorf("%s: escalated with %q after a %s %s failure", name, out.EscalationReason, last.Class, last.Reason)
			}
		default:
			t.Errorf("%s: status %q, want succeeded or escalated (%v)", name, out.Status, out.Err)
		}
		key := fmt.Sprintf("%d/%s", a.run, a.name)
		if outputs[key] {
			t.Errorf("result %d duplicates %s", i, key)
		}
		outputs[key] = true
	}
	if len(outputs) != runs*agents {
		t.Errorf("%d distinct results, want %d", len(outputs), runs*agents)
	}
	if analyses != int64(analyzer.Count()) {
		t.Errorf("%d analyses recorded, the analyzer ran %d times", analyses, int64(analyzer.Count()))
	}

	t.Logf("fault suite: %d runs × %d agents, %.0f%% of attempts fail", runs, agents, failP*100)
	t.Logf("succeeded first try: %d, after transient retries: %d, after alternatives: %d", firstTry, afterRetries, afterAlternatives)
	for _, k := range slices.Sorted(maps.Keys(escalated)) {
		t.Logf("escalated %s: %d", k, escalated[k])
	}
	for _, k := range slices.Sorted(maps.Keys(attempts)) {
		t.Logf("runs with %d attempt(s): %d", k, attempts[k])
	}
	t.Logf("analyzer calls: %d", int64(analyzer.Count()))
	if firstTry+afterRetries+afterAlternatives == 0 || len(escalated) == 0 {
		t.Error("the suite exercised too little: tune failP or the seed")
	}
}

// consistentReason reports whether an escalation reason fits the failure of
// the last attempt.
func consistentReason(last Attempt, reason string) bool {
	switch last.Class {
	case agent.Fatal:
		return reason == ReasonFatal
	case agent.Transient:
		return reason == ReasonRetriesExhausted || reason == ReasonRetryBudget
	case agent.Systematic:
		switch reason {
		case ReasonAlternativesExhausted, ReasonAnalyzerFailed, ReasonAnalyzerEscalate, ReasonRetryBudget:
			return true
		}
	}
	return false
}
