package cost_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

// openAIAgent is a real OpenAI agent on the fake server.
func openAIAgent(t *testing.T, name, model string) (agent.Agent, *llmtest.Server, config.Agent) {
	t.Helper()
	srv := llmtest.NewOpenAI(t)
	ac := config.Agent{Provider: config.ProviderOpenAI, Model: model, MaxTokens: 100}
	a, err := llm.New(name, ac, llm.Options{Getenv: srv.Getenv, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return a, srv, ac
}

// TestMeteredChargesTheAgentOnTheContext: an attempt counts for the agent
// ForAgent names (a judge judging codex's output counts for codex), else
// for the agent itself, priced by the model the provider reports.
func TestMeteredChargesTheAgentOnTheContext(t *testing.T) {
	t.Parallel()
	a, srv, ac := openAIAgent(t, "judge", "gpt-4.1")
	srv.Script(
		llmtest.Reply{Text: llmtest.Answer("yes", 1), Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}, Model: "gpt-4.1-2025-04-14"},
		llmtest.Reply{Text: llmtest.Answer("no", 1), Usage: agent.Usage{InputTokens: 2000, OutputTokens: 200}},
	)
	m := cost.NewMeter(cost.NewPricer(nil, cost.Builtin))
	judge := cost.Metered(a, m, cost.RateOf(ac))
	ctx := t.Context()
	if _, err := judge.Run(cost.ForAgent(ctx, "codex"), agent.Request{Intent: "judge this"}); err != nil {
		t.Fatal(err)
	}
	if _, err := judge.Run(ctx, agent.Request{Intent: "judge that"}); err != nil {
		t.Fatal(err)
	}
	// gpt-4.1: $2 in, $8 out per million tokens.
	if usd, ok := m.Agent("codex").Cost(); !ok || !near(usd, (1000*2+100*8)/1e6) || m.Agent("codex").Tokens() != 1100 {
		t.Errorf("codex = %+v", m.Agent("codex"))
	}
	if usd, ok := m.Agent("judge").Cost(); !ok || !near(usd, (2000*2+200*8)/1e6) {
		t.Errorf("judge = %+v", m.Agent("judge"))
	}
	total := m.Total()
	if usd, ok := total.Cost(); !ok || !near(usd, 0.0028+0.0056) || total.Tokens() != 3300 || total.Requests != 2 {
		t.Errorf("total = %+v", total)
	}
}

// TestMeteredFailedCalls: a refused request costs nothing and no request;
// a model no price covers makes the cost unknown; a command agent's cost
// is unknown.
func TestMeteredFailedCalls(t *testing.T) {
	t.Parallel()
	a, srv, ac := openAIAgent(t, "codex", "not-a-priced-model")
	srv.Script(llmtest.Reply{Status: 401}, llmtest.Reply{Text: llmtest.Answer("x", 1)})
	m := cost.NewMeter(cost.NewPricer(nil, cost.Builtin))
	ma := cost.Metered(a, m, cost.RateOf(ac))
	if _, err := ma.Run(t.Context(), agent.Request{Intent: "x"}); err == nil {
		t.Fatal("a 401 succeeded")
	}
	if s := m.Agent("codex"); s.Requests != 0 || s.Unpriced != 0 {
		t.Errorf("after a refused request: %+v, want nothing spent", s)
	}
	if _, err := ma.Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
		t.Fatal(err)
	}
	if s := m.Agent("codex"); s.USDOrNil() != nil || s.Requests != 1 || s.Tokens() == 0 {
		t.Errorf("an unpriced model: %+v, want an unknown cost with its tokens", s)
	}

	cmd, err := command.New("script", config.Agent{Provider: config.ProviderCommand, Run: []string{"true"}}, command.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mc := cost.Metered(cmd, m, cost.RateOf(config.Agent{Provider: config.ProviderCommand}))
	if _, err := mc.Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
		t.Fatal(err)
	}
	if s := m.Agent("script"); s.USDOrNil() != nil {
		t.Errorf("command agent: %+v, want an unknown cost", s)
	}
}

// TestMeterCaps: the meter is exhausted at the first cap reached — the
// run's own or what is left of the day's — and says which, with figures.
func TestMeterCaps(t *testing.T) {
	t.Parallel()
	p := cost.NewPricer(map[string]config.Price{"m": {Input: 1000, Output: 1000}}, nil) // $0.001 a token
	rate := cost.Rate{Provider: "openai", Model: "m"}
	m := cost.NewMeter(p, cost.Cap{Key: "budget.max-usd-per-run", Window: "this run", Limit: 0.5})
	m.Limit(cost.Cap{Key: "budget.max-tokens-per-day", Window: "today (UTC)", Tokens: true, Limit: 1000, Before: 700})
	ctx := t.Context()
	m.Call(ctx, "a", rate, "", agent.Usage{InputTokens: 200}, 1)
	if m.Exhausted() {
		t.Fatalf("exhausted after 200 tokens ($0.20): %s", m.Spent())
	}
	m.Call(ctx, "a", rate, "", agent.Usage{OutputTokens: 100}, 1)
	if !m.Exhausted() {
		t.Fatal("not exhausted at 1000 tokens today")
	}
	if got, want := m.Spent(), "budget.max-tokens-per-day: 1000 tokens of 1000 tokens spent today (UTC)"; got != want {
		t.Errorf("Spent = %q, want %q", got, want)
	}
	var nilMeter *cost.Meter
	if nilMeter.Exhausted() || nilMeter.Total() != (cost.Spend{}) {
		t.Error("a nil meter counts or caps")
	}
}

// TestMeterConcurrent: calls charged from many goroutines all count.
func TestMeterConcurrent(t *testing.T) {
	t.Parallel()
	m := cost.NewMeter(cost.NewPricer(map[string]config.Price{"m": {Input: 1, Output: 1}}, nil))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			ctx := cost.ForAgent(t.Context(), []string{"a", "b"}[i%2])
			m.Call(ctx, "", cost.Rate{Model: "m"}, "", agent.Usage{InputTokens: 10}, 1)
		})
	}
	wg.Wait()
	if m.Total().Tokens() != 500 || m.Agent("a").Requests != 25 || m.Agent("b").Requests != 25 {
		t.Errorf("total %+v, agents %+v", m.Total(), m.Agents())
	}
	restored := cost.NewMeter(cost.Pricer{})
	restored.Restore(m.Agents())
	if got, want := restored.Total(), m.Total(); got.Tokens() != want.Tokens() || got.Requests != want.Requests || !near(got.USD, want.USD) {
		t.Errorf("restored total %+v, want %+v", restored.Total(), m.Total())
	}
	if !strings.Contains(restored.Spent(), "no budget") {
		t.Errorf("Spent without caps = %q", restored.Spent())
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestUnknownIsNeverZero: a call of unknown use makes the cost and
// tokens unknown — null when nothing is known, the known part flagged as
// partial otherwise — and a cap counts the known part and says what it
// could not count.
func TestUnknownIsNeverZero(t *testing.T) {
	t.Parallel()
	p := cost.NewPricer(map[string]config.Price{"m": {Input: 1, Output: 1}}, nil)
	rate := cost.Rate{Provider: "openai", Model: "m"}
	m := cost.NewMeter(p, cost.Cap{Key: "budget.max-usd-per-run", Window: "this run", Limit: 1})
	ctx := t.Context()
	m.Call(ctx, "a", rate, "", agent.UnknownUsage, 1)
	if s := m.Total(); s.USDOrNil() != nil || s.TokensOrNil() != nil || s.Format() != "-" {
		t.Errorf("only an unknown call: %+v, %s; want nil cost and tokens", s, s.Format())
	}
	m.Call(ctx, "a", rate, "", agent.Usage{InputTokens: 1_000_000}, 1)
	s := m.Total()
	usd, ok := s.Cost()
	if ok || usd != 1 || *s.USDOrNil() != 1 || *s.TokensOrNil() != 1_000_000 || s.TokensKnown() || s.Format() != "$1.00+" {
		t.Errorf("a known and an unknown call: %+v (%s); want the known $1.00 flagged partial", s, s.Format())
	}
	if !m.Exhausted() || !strings.Contains(m.Spent(), "$1.00 of $1.00 spent this run (the known part: 1 call of this run spent cost optr could not know, not counted)") {
		t.Errorf("Spent = %q", m.Spent())
	}
	err := m.Allow(cost.Spend{})
	var capErr *cost.CapError
	if !errors.As(err, &capErr) || !errors.Is(err, agent.ErrBudgetSpent) || !strings.Contains(err.Error(), "budget.max-usd-per-run") {
		t.Errorf("Allow = %v", err)
	}
}

// TestAllow: a call is allowed while the spend with its estimate stays
// within every cap, refused once it would pass one.
func TestAllow(t *testing.T) {
	t.Parallel()
	m := cost.NewMeter(cost.Pricer{}, cost.Cap{Key: "budget.max-tokens", Window: "this run", Tokens: true, Limit: 100})
	if err := m.Allow(cost.Spend{Usage: agent.Usage{InputTokens: 100}}); err != nil {
		t.Errorf("a call that reaches the cap exactly: %v", err)
	}
	err := m.Allow(cost.Spend{Usage: agent.Usage{InputTokens: 101}})
	if want := "budget.max-tokens: 0 tokens of 100 tokens spent this run; this call would add about 101 tokens"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a call that would pass the cap: %v; want a refusal saying %q", err, want)
	}
	var nilMeter *cost.Meter
	if err := nilMeter.Allow(cost.Spend{Usage: agent.Usage{InputTokens: 1e9}}); err != nil {
		t.Errorf("a nil meter refused: %v", err)
	}
}

// stubAgent answers every attempt with resp.
type stubAgent struct{ resp agent.Response }

func (s stubAgent) Name() string { return "stub" }
func (s stubAgent) Run(context.Context, agent.Request) (agent.Response, error) {
	return s.resp, nil
}

// TestMeteredSkipsWhatTheGatewayCharged: the part of an attempt's use
// the gateway charged as its calls ended is not charged again; what is
// left of an opaque agent's attempt (a call that bypassed the gateway) is
// unknown.
func TestMeteredSkipsWhatTheGatewayCharged(t *testing.T) {
	t.Parallel()
	m := cost.NewMeter(cost.Pricer{})
	viaGateway := agent.Usage{InputTokens: 10, OutputTokens: 5}
	a := cost.Metered(stubAgent{agent.Response{
		Usage: viaGateway.Add(agent.UnknownUsage), Metered: viaGateway, Calls: []agent.Call{{Usage: viaGateway}},
	}}, m, cost.Rate{Provider: "command", Opaque: true})
	if _, err := a.Run(t.Context(), agent.Request{}); err != nil {
		t.Fatal(err)
	}
	if s := m.Agent("stub"); s.Usage != agent.UnknownUsage || s.Requests != 0 {
		t.Errorf("charged %+v; want only the unknown rest", s)
	}
}
