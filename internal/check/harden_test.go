package check

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/status"
)

const testKey = "ghs_CHECKSECRET0123456789abcdefghij"

// fragments lists every piece of 8 or more bytes at either end of key.
func leaks(s, key string) []string {
	var out []string
	for k := 8; k <= len(key); k++ {
		for _, piece := range []string{key[:k], key[len(key)-k:]} {
			if strings.Contains(s, piece) {
				out = append(out, piece)
			}
		}
	}
	return out
}

// A command check that prints a token (its environment holds it) puts it
// into the Reason that is committed in optr-selection.json, unless the
// Reason is redacted — including the half of a key the 1 KiB tail cut.
func TestCommandReasonIsRedacted(t *testing.T) {
	t.Parallel()
	for _, pad := range []int{0, 1024 - 12, 1024 - 3} {
		t.Run(fmt.Sprint(pad), func(t *testing.T) {
			t.Parallel()
			script := fmt.Sprintf(`printf 'token %%s' "$TOKEN"; head -c %d /dev/zero | tr '\0' x; exit 1`, pad)
			opts := Options{Env: []string{"TOKEN=" + testKey, "PATH=/usr/bin:/bin"}, Redactor: redact.New(testKey)}
			cs := []Constraint{{Name: "c", Hard: true, Checker: mustNew(t, "c", config.Constraint{Check: "command", Run: []string{"sh", "-c", script}}, opts)}}
			ev := Evaluate(t.Context(), cs, "out")
			v := ev.Verdicts[0]
			if v.Status != status.Failed {
				t.Fatalf("verdict %+v, want failed", v)
			}
			if l := leaks(v.Reason, testKey); len(l) > 0 {
				t.Fatalf("reason %q leaks %q", v.Reason, l)
			}
		})
	}
}

// A judge whose answer quotes a secret has it redacted in the Reason.
func TestJudgeReasonIsRedacted(t *testing.T) {
	t.Parallel()
	a := agenttest.New("judge", func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: `{"pass": false, "reason": "the output leaks ` + testKey + `"}`}, nil
	})
	opts := judgeOpts(a)
	opts.Redactor = redact.New(testKey)
	cs := []Constraint{{Name: "j", Hard: true, Checker: mustNew(t, "j", config.Constraint{Check: "judge", Agent: "judge"}, opts)}}
	v := Evaluate(t.Context(), cs, "out").Verdicts[0]
	if l := leaks(v.Reason, testKey); len(l) > 0 || !strings.Contains(v.Reason, redact.Placeholder) {
		t.Fatalf("reason %q leaks %q", v.Reason, l)
	}
}

// An issue naming 500 constraints made 501 model requests for one run;
// now at most budget.max-intent-constraints are added, and the rest are
// named as dropped.
func TestIntentConstraintsAreCapped(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 500 {
		names = append(names, fmt.Sprintf("rule-%03d", i))
	}
	var calls atomic.Int64
	a := agenttest.New("judge", func(context.Context, agent.Request) (agent.Response, error) {
		calls.Add(1)
		return agent.Response{Output: `{"pass": true, "reason": "ok"}`}, nil
	})
	opts := judgeOpts(a)
	opts.DefaultJudge = "judge"
	cfg := &config.Config{Budget: config.Budget{MaxIntentConstraints: 3}, Constraints: map[string]config.Constraint{
		"rule-001": {Check: "contains", Value: "o", Hard: true},
	}}
	kept, dropped := CapIntent(cfg, names)
	if diff := cmp.Diff([]string{"rule-000", "rule-002", "rule-003"}, kept); diff != "" {
		t.Fatalf("kept (-want +got):\n%s", diff)
	}
	if len(dropped) != 496 || dropped[0] != "rule-004" {
		t.Fatalf("dropped %d starting %v", len(dropped), dropped[:1])
	}
	cs, err := Resolve(cfg, names, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(cs); !cmp.Equal(got, []string{"rule-001", "rule-000", "rule-002", "rule-003"}) {
		t.Fatalf("resolved %v", got)
	}
	Evaluate(t.Context(), cs, "out")
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d judge calls, want 3", n)
	}
	if _, dropped := CapIntent(&config.Config{}, names); len(dropped) != 500-DefaultMaxIntentConstraints {
		t.Fatalf("default cap dropped %d", len(dropped))
	}
}

// Judge calls count against the run's budget where they are made (the run
// meters its judge agents, as here), and once it is spent no judge is
// asked: the hard constraint fails closed and says why. Each call is
// charged to the agent whose output it judged.
func TestJudgeCallsSpendTheBudget(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	a := agenttest.New("judge", func(context.Context, agent.Request) (agent.Response, error) {
		calls.Add(1)
		return agent.Response{Output: `{"pass": true, "reason": "ok"}`, Usage: agent.Usage{InputTokens: 60, OutputTokens: 40}}, nil
	})
	b := cost.NewMeter(cost.Pricer{}, cost.Cap{Key: "budget.max-tokens", Window: "this run", Tokens: true, Limit: 150})
	opts := judgeOpts(cost.Metered(a, b, cost.Rate{Provider: "openai"}))
	opts.Budget = b
	var cs []Constraint
	for i := range 4 {
		name := fmt.Sprintf("j%d", i)
		cs = append(cs, Constraint{Name: name, Hard: true, Checker: mustNew(t, name, config.Constraint{Check: "judge", Agent: "judge"}, opts)})
	}
	var got []status.Status
	var last Verdict
	for _, c := range cs {
		last = Evaluate(cost.ForAgent(t.Context(), "codex"), []Constraint{c}, "out").Verdicts[0]
		got = append(got, last.Status)
	}
	if diff := cmp.Diff([]status.Status{status.Passed, status.Passed, status.Failed, status.Failed}, got); diff != "" {
		t.Fatalf("verdicts (-want +got):\n%s", diff)
	}
	if calls.Load() != 2 || b.Agent("codex").Tokens() != 200 || b.Total().Tokens() != 200 {
		t.Fatalf("%d calls, codex %d tokens, run %d; want 2 calls, 200 tokens for codex", calls.Load(), b.Agent("codex").Tokens(), b.Total().Tokens())
	}
	if !strings.Contains(last.Reason, "budget.max-tokens: 200 tokens of 150 tokens") {
		t.Errorf("the failed constraint says %q", last.Reason)
	}
}
