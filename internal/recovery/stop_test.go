package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

func outcomes(out Outcome) []string {
	var s []string
	for _, at := range out.Attempts {
		s = append(s, at.Outcome)
	}
	return s
}

func TestRunBudgetStopsNewAttempts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		max       int64
		usd       bool  // max is a cap in cents at $0.01 a token, not in tokens
		spent     int64 // used before the run (today's budget)
		steps     []agenttest.Reply
		analyzer  []agenttest.Reply
		outcomes  []string
		usage     int64
		byAnalyze int64
	}{
		{
			name:     "attempts spend the budget",
			max:      100,
			steps:    []agenttest.Reply{fail(unavailable(), 60), fail(unavailable(), 60)},
			outcomes: []string{OutcomeRetry, OutcomeBudgetExhausted},
			usage:    120,
		},
		{
			name:      "analyzer tokens count",
			max:       100,
			steps:     []agenttest.Reply{fail(unusable(), 50)},
			analyzer:  []agenttest.Reply{ok(`{"action":"alternative","hint":"h"}`, 60)},
			outcomes:  []string{OutcomeBudgetExhausted},
			usage:     110,
			byAnalyze: 60,
		},
		{
			name:     "no analysis once the budget is spent",
			max:      100,
			steps:    []agenttest.Reply{fail(unusable(), 100)},
			analyzer: []agenttest.Reply{},
			outcomes: []string{OutcomeBudgetExhausted},
			usage:    100,
		},
		{
			name:     "a dollar cap stops it too",
			max:      100,
			usd:      true,
			steps:    []agenttest.Reply{fail(unavailable(), 60), fail(unavailable(), 60)},
			outcomes: []string{OutcomeRetry, OutcomeBudgetExhausted},
			usage:    120,
		},
		{
			// The model gateway refused a call of the attempt: the cap
			// is not reached yet, but the next call would pass it.
			name:     "a call the budget refused stops the agent",
			max:      100,
			steps:    []agenttest.Reply{fail(refusedByBudget(), 10)},
			outcomes: []string{OutcomeBudgetExhausted},
			usage:    10,
		},
		{
			name:  "nothing starts on a spent budget",
			max:   100,
			spent: 100,
			steps: []agenttest.Reply{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cost.Cap{Key: "budget.max-tokens-per-day", Window: "today (UTC)", Tokens: true, Limit: float64(tt.max), Before: float64(tt.spent)}
			if tt.usd {
				c = cost.Cap{Key: "budget.max-usd-per-run", Window: "this run", Limit: float64(tt.max) / 100}
			}
			// Every call is metered, as the run's agents are: $0.01 a token.
			b := cost.NewMeter(cost.NewPricer(map[string]config.Price{"m": {Input: 1e4, Output: 1e4}}, nil), c)
			rate := cost.Rate{Provider: "openai", Model: "m"}
			a := cost.Metered(agenttest.New("claude", agenttest.Steps(t, tt.steps...)), b, rate)
			p := Policy{Attempts: 3, MaxAlternatives: 2, BaseDelay: time.Second, Budget: b, Clock: clocktest.New(clocktest.Start), Rand: half}
			if tt.analyzer != nil {
				p.Analyzer = cost.Metered(agenttest.New("analyzer", agenttest.Steps(t, tt.analyzer...)), b, rate)
			}
			out := p.Run(t.Context(), a, agent.Request{Intent: "x"}, nil)
			if out.Status != OutcomeBudgetExhausted || !out.BudgetExhausted || out.Escalated {
				t.Errorf("Status = %q, BudgetExhausted = %v, Escalated = %v; want budget_exhausted, true, false",
					out.Status, out.BudgetExhausted, out.Escalated)
			}
			if !errors.Is(out.Err, ErrBudgetExhausted) || !strings.Contains(out.Err.Error(), c.Key) {
				t.Errorf("Err = %v, want one wrapping ErrBudgetExhausted that names %s", out.Err, c.Key)
			}
			if diff := cmp.Diff(tt.outcomes, outcomes(out)); diff != "" {
				t.Errorf("attempt outcomes (-want +got):\n%s", diff)
			}
			if got := out.Usage.Total(); got != tt.usage {
				t.Errorf("Usage = %d tokens, want %d", got, tt.usage)
			}
			if got := out.AnalyzerUsage.Total(); got != tt.byAnalyze {
				t.Errorf("AnalyzerUsage = %d tokens, want %d", got, tt.byAnalyze)
			}
			if got := b.Total().Tokens(); got != tt.usage {
				t.Errorf("the run spent %d tokens, want %d", got, tt.usage)
			}
			checkInvariants(t, p, out)
		})
	}
}

func TestRunCancelDuringSleepReturnsPromptly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	a := agenttest.New("codex", agenttest.Steps(t, func(context.Context, agent.Request) (agent.Response, error) {
		time.AfterFunc(50*time.Millisecond, cancel)
		return agent.Response{}, rateLimited(time.Hour)
	}))
	p := Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: time.Minute, MaxTotal: 2 * time.Hour} // the real clock
	start := time.Now()
	out := p.Run(ctx, a, agent.Request{Intent: "x"}, nil)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %s after cancellation during a 1h wait", d)
	}
	if out.Status != OutcomeCancelled || !errors.Is(out.Err, context.Canceled) {
		t.Errorf("Status = %q, Err = %v; want cancelled wrapping context.Canceled", out.Status, out.Err)
	}
	if diff := cmp.Diff([]string{OutcomeCancelled}, outcomes(out)); diff != "" {
		t.Errorf("attempt outcomes (-want +got):\n%s", diff)
	}
	if got := out.Attempts[0].DelayMS; got >= time.Hour.Milliseconds() {
		t.Errorf("DelayMS = %d, want the time actually waited", got)
	}
	checkInvariants(t, p, out)
}

func TestRunCancelDuringAttempt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	a := agenttest.New("codex", agenttest.Steps(t, func(ctx context.Context, _ agent.Request) (agent.Response, error) {
		cancel()
		<-ctx.Done()
		return agent.Response{Output: "half an ans"}, ctx.Err()
	}))
	p := Policy{Attempts: 3, Clock: clocktest.New(clocktest.Start)}
	out := p.Run(ctx, a, agent.Request{Intent: "x"}, nil)
	if out.Status != OutcomeCancelled || out.Escalated || !errors.Is(out.Err, context.Canceled) {
		t.Errorf("Status = %q, Escalated = %v, Err = %v; want cancelled", out.Status, out.Escalated, out.Err)
	}
	if out.Response.Output != "half an ans" {
		t.Errorf("Response.Output = %q, want the partial output kept", out.Response.Output)
	}
	checkInvariants(t, p, out)

	// A context cancelled before Run starts makes no attempt.
	out = p.Run(ctx, agenttest.New("idle", agenttest.Steps(t)), agent.Request{}, nil)
	if out.Status != OutcomeCancelled || len(out.Attempts) != 0 {
		t.Errorf("on a cancelled context: Status = %q with %d attempts", out.Status, len(out.Attempts))
	}
}

func TestRunAttemptTimeoutIsTransient(t *testing.T) {
	t.Parallel()
	hang := func(ctx context.Context, _ agent.Request) (agent.Response, error) {
		<-ctx.Done()
		return agent.Response{}, ctx.Err()
	}
	a := agenttest.New("codex", agenttest.Steps(t, hang, ok("done", 1)))
	p := Policy{Attempts: 2, AttemptTimeout: 20 * time.Millisecond, BaseDelay: time.Second, Clock: clocktest.New(clocktest.Start), Rand: half}
	out := p.Run(t.Context(), a, agent.Request{}, nil)
	if out.Status != OutcomeSucceeded {
		t.Fatalf("Status = %q (%v), want succeeded", out.Status, out.Err)
	}
	first := out.Attempts[0]
	if first.Class != agent.Transient || first.Reason != "timeout" {
		t.Errorf("timed-out attempt: class %q reason %q, want transient timeout", first.Class, first.Reason)
	}
}

func TestRunRecordsFailures(t *testing.T) {
	t.Parallel()
	a := agenttest.New("codex", agenttest.Steps(t, fail(unusable(), 5), ok("no", 5)))
	an := agenttest.New("analyzer", agenttest.Steps(t,
		alternative("answer with JSON only"),
		ok(`{"action":"escalate","reasoning":"the checks cannot pass"}`, 2),
	))
	p := Policy{Attempts: 3, MaxAlternatives: 2, Analyzer: an, Clock: clocktest.New(clocktest.Start)}
	accept := func(context.Context, agent.Response) error {
		return &agent.Error{Class: agent.Fatal, Reason: "schema_mismatch", Err: errors.New("missing field title")}
	}
	out := p.Run(t.Context(), a, agent.Request{Intent: "x"}, accept)

	want := []Attempt{
		{N: 1, Start: out.Attempts[0].Start, Class: agent.Systematic, Reason: "unparseable_output",
			Error: "systematic unparseable_output: the model's answer is not JSON", Outcome: OutcomeAlternative,
			Usage:    agent.Usage{OutputTokens: 5},
			Analysis: &Analysis{Action: ActionAlternative, Hint: "answer with JSON only", Reasoning: "the output was not JSON", Usage: agent.Usage{InputTokens: 7}}},
		{N: 2, Start: out.Attempts[1].Start, Class: agent.Systematic, Reason: "schema_mismatch",
			Error: "systematic schema_mismatch: fatal schema_mismatch: missing field title", Hint: "answer with JSON only",
			Outcome: OutcomeEscalated, Usage: agent.Usage{InputTokens: 5},
			Analysis: &Analysis{Action: ActionEscalate, Reasoning: "the checks cannot pass", Usage: agent.Usage{InputTokens: 2}}},
	}
	if diff := cmp.Diff(want, out.Attempts); diff != "" {
		t.Errorf("Attempts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1].Analysis, out.Analysis); diff != "" {
		t.Errorf("Outcome.Analysis is not the last one (-want +got):\n%s", diff)
	}
	if out.EscalationReason != ReasonAnalyzerEscalate || !strings.Contains(out.Err.Error(), "the checks cannot pass") {
		t.Errorf("EscalationReason = %q, Err = %v", out.EscalationReason, out.Err)
	}
	if diff := cmp.Diff(agent.Usage{InputTokens: 9}, out.AnalyzerUsage); diff != "" {
		t.Errorf("AnalyzerUsage (-want +got):\n%s", diff)
	}
	// The second analysis is told which hint was already tried.
	if prompt := an.Requests()[1].Intent; !strings.Contains(prompt, "answer with JSON only") {
		t.Errorf("second analysis prompt does not list the hint already tried:\n%s", prompt)
	}
}

func TestRunErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []agenttest.Reply
		want  []string // substrings of Err
	}{
		{"fatal", []agenttest.Reply{fail(unauthorized(), 0)}, []string{"agent codex escalated after 1 attempt(s)", "credentials", "bad credentials"}},
		{"retries", []agenttest.Reply{fail(unavailable(), 0)}, []string{"try again later", "recovery.attempts", "service unavailable"}},
		{"no analyzer", []agenttest.Reply{fail(unusable(), 0)}, []string{"recovery.analyzer", "not JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Policy{Attempts: 1, Clock: clocktest.New(clocktest.Start)}
			out := p.Run(t.Context(), agenttest.New("codex", agenttest.Steps(t, tt.steps...)), agent.Request{}, nil)
			for _, w := range tt.want {
				if out.Err == nil || !strings.Contains(out.Err.Error(), w) {
					t.Errorf("Err = %v, want it to mention %q", out.Err, w)
				}
			}
			if agent.ClassOf(out.Err) != out.Attempts[0].Class {
				t.Errorf("Err does not wrap the attempt's error: class %q, attempt %q", agent.ClassOf(out.Err), out.Attempts[0].Class)
			}
		})
	}
}
