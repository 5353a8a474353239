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
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

func alternative(hint string) agenttest.Reply {
	return ok(`{"action":"alternative","hint":"`+hint+`","reasoning":"the output was not JSON"}`, 7)
}

func TestRun(t *testing.T) {
	t.Parallel()
	slow := func(c **clocktest.Clock, d time.Duration, s agenttest.Reply) agenttest.Reply {
		return func(ctx context.Context, req agent.Request) (agent.Response, error) {
			(*c).Advance(d)
			return s(ctx, req)
		}
	}
	type want struct {
		status   string
		reason   string
		outcomes []string
		hints    []string // the hint each attempt received
		sleeps   []time.Duration
		analyses int // analyzer calls
	}
	tests := []struct {
		name     string
		policy   Policy // Clock and Rand are set by the test
		steps    func(c **clocktest.Clock) []agenttest.Reply
		analyzer []agenttest.Reply // nil: no analyzer
		accept   func(context.Context, agent.Response) error
		want     want
	}{
		{
			name:   "429 with Retry-After 2s waits 2s then succeeds",
			policy: Policy{Attempts: 3, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxTotal: time.Minute},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(rateLimited(2*time.Second), 1), ok("done", 1)}
			},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeRetry, OutcomeSucceeded},
				hints: []string{"", ""}, sleeps: []time.Duration{2 * time.Second}},
		},
		{
			name:   "Retry-After above MaxDelay is still honoured",
			policy: Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxTotal: 10 * time.Minute},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(rateLimited(45*time.Second), 1), ok("done", 1)}
			},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeRetry, OutcomeSucceeded},
				hints: []string{"", ""}, sleeps: []time.Duration{45 * time.Second}},
		},
		{
			name:   "5xx backs off exponentially",
			policy: Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(unavailable(), 1), fail(unavailable(), 1), ok("done", 1)}
			},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeRetry, OutcomeRetry, OutcomeSucceeded},
				hints: []string{"", "", ""}, sleeps: []time.Duration{500 * time.Millisecond, time.Second}},
		},
		{
			name:   "transient attempts are bounded",
			policy: Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(unavailable(), 1), fail(unavailable(), 1), fail(unavailable(), 1)}
			},
			want: want{status: OutcomeEscalated, reason: ReasonRetriesExhausted,
				outcomes: []string{OutcomeRetry, OutcomeRetry, OutcomeEscalated},
				hints:    []string{"", "", ""}, sleeps: []time.Duration{500 * time.Millisecond, time.Second}},
		},
		{
			name:   "401 escalates at once without waiting",
			policy: Policy{Attempts: 3, MaxAlternatives: 2, BaseDelay: time.Second},
			steps:  func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unauthorized(), 0)} },
			want: want{status: OutcomeEscalated, reason: ReasonFatal,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}},
		},
		{
			name:   "unusable output gets an alternative whose hint the next attempt receives",
			policy: Policy{Attempts: 3, MaxAlternatives: 2},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(unusable(), 5), ok("fixed", 5)}
			},
			analyzer: []agenttest.Reply{alternative("answer with JSON only")},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeAlternative, OutcomeSucceeded},
				hints: []string{"", "answer with JSON only"}, analyses: 1},
		},
		{
			name:     "a garbage analyzer answer escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok("I think you should try harder.", 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerFailed,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:     "an unknown action escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok(`{"action":"retry","hint":"again"}`, 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerFailed,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:     "an alternative without a hint escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok(`{"action":"alternative","hint":"  "}`, 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerFailed,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:     "an analyzer error escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{fail(unavailable(), 0)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerFailed,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:   "MaxAlternatives=2 makes exactly 3 attempts",
			policy: Policy{Attempts: 3, MaxAlternatives: 2},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(unusable(), 5), fail(unusable(), 5), fail(unusable(), 5)}
			},
			analyzer: []agenttest.Reply{alternative("first idea"), alternative("second idea")},
			want: want{status: OutcomeEscalated, reason: ReasonAlternativesExhausted,
				outcomes: []string{OutcomeAlternative, OutcomeAlternative, OutcomeEscalated},
				hints:    []string{"", "first idea", "second idea"}, analyses: 2},
		},
		{
			name:   "no analyzer escalates a systematic failure",
			policy: Policy{Attempts: 3, MaxAlternatives: 2},
			steps:  func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			want: want{status: OutcomeEscalated, reason: ReasonNoAnalyzer,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}},
		},
		{
			name:     "diagnostics escalates carrying the analysis",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok(`{"action":"diagnostics","hint":"look at the runner logs","reasoning":"no clue"}`, 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerDiagnostics,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:     "unblock escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok("```json\n{\"action\":\"unblock\",\"hint\":\"grant contents: write\"}\n```", 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerUnblock,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:     "escalate escalates",
			policy:   Policy{Attempts: 3, MaxAlternatives: 2},
			steps:    func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unusable(), 5)} },
			analyzer: []agenttest.Reply{ok(`{"action":"ESCALATE","reasoning":"needs a human"}`, 3)},
			want: want{status: OutcomeEscalated, reason: ReasonAnalyzerEscalate,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}, analyses: 1},
		},
		{
			name:   "a Retry-After past MaxTotal escalates without waiting",
			policy: Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxTotal: 10 * time.Minute},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(rateLimited(20*time.Minute), 1)}
			},
			want: want{status: OutcomeEscalated, reason: ReasonRetryBudget,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}},
		},
		{
			name:   "slow attempts use up MaxTotal",
			policy: Policy{Attempts: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxTotal: 10 * time.Minute},
			steps: func(c **clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{slow(c, 6*time.Minute, fail(unavailable(), 1)), slow(c, 6*time.Minute, fail(unavailable(), 1))}
			},
			want: want{status: OutcomeEscalated, reason: ReasonRetryBudget,
				outcomes: []string{OutcomeRetry, OutcomeEscalated}, hints: []string{"", ""},
				sleeps: []time.Duration{500 * time.Millisecond}},
		},
		{
			name:   "a systematic failure after MaxTotal is not analysed",
			policy: Policy{Attempts: 3, MaxAlternatives: 2, MaxTotal: time.Minute},
			steps: func(c **clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{slow(c, 2*time.Minute, fail(unusable(), 1))}
			},
			analyzer: []agenttest.Reply{},
			want: want{status: OutcomeEscalated, reason: ReasonRetryBudget,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}},
		},
		{
			name:   "rejected output goes to analysis",
			policy: Policy{Attempts: 3, MaxAlternatives: 2},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{ok("no heading", 5), ok("# Heading", 5)}
			},
			analyzer: []agenttest.Reply{alternative("start with a Markdown heading")},
			accept: func(_ context.Context, r agent.Response) error {
				if !strings.HasPrefix(r.Output, "#") {
					return errors.New("constraint heading failed: the output does not start with #")
				}
				return nil
			},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeAlternative, OutcomeSucceeded},
				hints: []string{"", "start with a Markdown heading"}, analyses: 1},
		},
		{
			name:   "a transient retry keeps the hint",
			policy: Policy{Attempts: 3, MaxAlternatives: 2, BaseDelay: time.Second, MaxDelay: time.Minute},
			steps: func(**clocktest.Clock) []agenttest.Reply {
				return []agenttest.Reply{fail(unusable(), 5), fail(unavailable(), 5), ok("done", 5)}
			},
			analyzer: []agenttest.Reply{alternative("be brief")},
			want: want{status: OutcomeSucceeded, outcomes: []string{OutcomeAlternative, OutcomeRetry, OutcomeSucceeded},
				hints: []string{"", "be brief", "be brief"}, sleeps: []time.Duration{500 * time.Millisecond}, analyses: 1},
		},
		{
			name:   "zero policy makes one attempt",
			policy: Policy{},
			steps:  func(**clocktest.Clock) []agenttest.Reply { return []agenttest.Reply{fail(unavailable(), 5)} },
			want: want{status: OutcomeEscalated, reason: ReasonRetriesExhausted,
				outcomes: []string{OutcomeEscalated}, hints: []string{""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := clocktest.New(clocktest.Start)
			a := agenttest.New("codex", agenttest.Steps(t, tt.steps(&clock)...))
			p := tt.policy
			p.Clock, p.Rand = clock, half
			var an *agenttest.Agent
			if tt.analyzer != nil {
				an = agenttest.New("analyzer", agenttest.Steps(t, tt.analyzer...))
				p.Analyzer = an
			}
			out := p.Run(t.Context(), a, agent.Request{Intent: "write a haiku", RunID: "1-1"}, tt.accept)

			got := want{status: out.Status, reason: out.EscalationReason, sleeps: clock.Slept()}
			for _, at := range out.Attempts {
				got.outcomes = append(got.outcomes, at.Outcome)
			}
			for _, r := range a.Requests() {
				got.hints = append(got.hints, r.Hint)
			}
			if an != nil {
				got.analyses = len(an.Requests())
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Run (-want +got):\n%s", diff)
			}
			checkInvariants(t, p, out)
		})
	}
}

// checkInvariants asserts what must hold for every Outcome.
func checkInvariants(t *testing.T, p Policy, out Outcome) {
	t.Helper()
	var usage, analyzer agent.Usage
	for i, at := range out.Attempts {
		if at.N != i+1 {
			t.Errorf("attempt %d has N=%d", i+1, at.N)
		}
		if (at.Class == "") != (at.Outcome == OutcomeSucceeded || at.Reason == OutcomeCancelled) {
			t.Errorf("attempt %d: class %q with outcome %q", at.N, at.Class, at.Outcome)
		}
		last := i == len(out.Attempts)-1
		if last != (at.Outcome != OutcomeRetry && at.Outcome != OutcomeAlternative) {
			t.Errorf("attempt %d of %d has outcome %q", at.N, len(out.Attempts), at.Outcome)
		}
		usage = usage.Add(at.Usage)
		if at.Analysis != nil {
			usage = usage.Add(at.Analysis.Usage)
			analyzer = analyzer.Add(at.Analysis.Usage)
		}
	}
	if diff := cmp.Diff(usage, out.Usage); diff != "" {
		t.Errorf("Usage is not the sum of the attempts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(analyzer, out.AnalyzerUsage); diff != "" {
		t.Errorf("AnalyzerUsage is not the sum of the analyses (-want +got):\n%s", diff)
	}
	if max := max(p.Attempts, 1) + p.MaxAlternatives; len(out.Attempts) > max {
		t.Errorf("%d attempts, the policy allows at most %d", len(out.Attempts), max)
	}
	if (out.Err == nil) != (out.Status == OutcomeSucceeded) {
		t.Errorf("status %q with Err = %v", out.Status, out.Err)
	}
	if out.Escalated != (out.Status == OutcomeEscalated) {
		t.Errorf("status %q with Escalated = %v", out.Status, out.Escalated)
	}
	if out.BudgetExhausted != (out.Status == OutcomeBudgetExhausted) {
		t.Errorf("status %q with BudgetExhausted = %v", out.Status, out.BudgetExhausted)
	}
	if n := len(out.Attempts); n > 0 && out.Status != out.Attempts[n-1].Outcome {
		t.Errorf("status %q but the last attempt's outcome is %q", out.Status, out.Attempts[n-1].Outcome)
	}
	if out.Escalated && out.EscalationReason == "" {
		t.Error("escalated without a reason")
	}
}

func TestRunAnalyzerFormatMismatch(t *testing.T) {
	t.Parallel()
	const answer = `{"action":"alternative","hint":"answer in JSON"}`
	tests := []struct {
		name   string
		resp   agent.Response
		err    error
		status string
		reason string
	}{
		{"systematic error with a valid analysis in Raw is salvaged", agent.Response{Raw: answer},
			unusable(), OutcomeSucceeded, ""},
		{"systematic error without one escalates", agent.Response{Raw: "sorry"},
			unusable(), OutcomeEscalated, ReasonAnalyzerFailed},
		{"transient error escalates even with a valid analysis", agent.Response{Raw: answer},
			unavailable(), OutcomeEscalated, ReasonAnalyzerFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			steps := []agenttest.Reply{fail(unusable(), 1)}
			if tt.status == OutcomeSucceeded {
				steps = append(steps, ok("done", 1))
			}
			an := agenttest.New("analyzer", agenttest.Steps(t, func(context.Context, agent.Request) (agent.Response, error) {
				return tt.resp, tt.err
			}))
			p := Policy{Attempts: 3, MaxAlternatives: 2, Analyzer: an, Clock: clocktest.New(clocktest.Start)}
			out := p.Run(t.Context(), agenttest.New("codex", agenttest.Steps(t, steps...)), agent.Request{}, nil)
			if out.Status != tt.status || out.EscalationReason != tt.reason {
				t.Errorf("Status = %q, reason %q; want %q, %q", out.Status, out.EscalationReason, tt.status, tt.reason)
			}
			checkInvariants(t, p, out)
		})
	}
}
