package cost

import (
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

func TestModelKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"gpt-4.1":                    "gpt-4.1",
		"gpt-4.1-2025-04-14":         "gpt-4.1",
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
		"Claude Sonnet 4.5":          "claude-sonnet-4.5",
		"  GPT-5.6 Terra ":           "gpt-5.6-terra",
		"gpt-5.6-sol-2026-07-09":     "gpt-5.6-sol",
		"model-1234":                 "model-1234", // not a date
	} {
		if got := ModelKey(in); got != want {
			t.Errorf("ModelKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuiltinTable: the table is dated, its keys are in the form lookups
// use, every price is positive, and it covers the embedded default agents'
// models and each LLM provider.
func TestBuiltinTable(t *testing.T) {
	t.Parallel()
	if _, err := time.Parse(time.DateOnly, PricesChecked); err != nil {
		t.Errorf("PricesChecked = %q: %v", PricesChecked, err)
	}
	for name, models := range Builtin {
		if !provider.IsLLM(name) {
			t.Errorf("table of %q, which is not an LLM provider", name)
		}
		for model, p := range models {
			if ModelKey(model) != model {
				t.Errorf("%s/%s is not in its ModelKey form %q: lookups would miss it", name, model, ModelKey(model))
			}
			if p.Input <= 0 || p.Output <= 0 || p.Output < p.Input || p.Request != 0 {
				t.Errorf("%s/%s = %+v: want positive token prices, output dearer than input, no request price", name, model, p)
			}
		}
	}
	for _, name := range provider.LLMNames() { // a provider added to the registry needs its prices
		if len(Builtin[name]) == 0 {
			t.Errorf("no prices for provider %s", name)
		}
	}
	d := config.Default(func(string) string { return "set" })
	for _, name := range d.AgentNames {
		a := d.Agents[name]
		if a.Model == "" {
			continue // copilot: the CLI's default, priced by the model that answers
		}
		if _, ok := Builtin.Lookup(a.Provider, a.Model); !ok {
			t.Errorf("default agent %s (%s/%s) has no built-in price", name, a.Provider, a.Model)
		}
	}
}

func TestPricer(t *testing.T) {
	t.Parallel()
	table := Table{
		"openai":    {"gpt-4.1": {Input: 2, Output: 8}},
		"anthropic": {"claude-sonnet-4-5": {Input: 3, Output: 15}},
		"copilot":   {"claude-sonnet-4.5": {Input: 3, Output: 15}},
	}
	p := NewPricer(map[string]config.Price{
		"my-model":     {Input: 1, Output: 1},
		"Gpt-4.1-Mini": {Input: 0.5, Output: 2},
		"claude-x":     {Request: 0.04},
	}, table)
	tests := []struct {
		name     string
		rate     Rate
		reported string
		want     Price
		ok       bool
	}{
		{"table by configured model", Rate{Provider: "openai", Model: "gpt-4.1"}, "", Price{Input: 2, Output: 8}, true},
		{"table by reported snapshot", Rate{Provider: "openai", Model: "alias"}, "gpt-4.1-2025-04-14", Price{Input: 2, Output: 8}, true},
		{"prices: over the table", Rate{Provider: "openai", Model: "gpt-4.1"}, "my-model", Price{Input: 1, Output: 1}, true},
		{"prices: by normal form", Rate{Provider: "openai", Model: "gpt-4.1-mini"}, "", Price{Input: 0.5, Output: 2}, true},
		{"prices: per request", Rate{Provider: "copilot"}, "claude-x", Price{Request: 0.04}, true},
		{"copilot by the answering model", Rate{Provider: "copilot"}, "claude-sonnet-4.5", Price{Input: 3, Output: 15}, true},
		{"another provider's table does not apply", Rate{Provider: "copilot", Model: "gpt-4.1"}, "", Price{}, false},
		{"azure deployment unknown", Rate{Provider: "azure-openai", Model: "my-deployment"}, "", Price{}, false},
		{"opaque", Rate{Provider: "command", Opaque: true}, "my-model", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := p.Price(tt.rate, tt.reported)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: Price = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRateOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a    config.Agent
		want Rate
	}{
		{config.Agent{Provider: "openai", Model: "gpt-4.1"}, Rate{Provider: "openai", Model: "gpt-4.1"}},
		{config.Agent{Provider: "copilot"}, Rate{Provider: "copilot"}},
		{config.Agent{Provider: "copilot", BYOK: "openai", Model: "gpt-4.1"}, Rate{Provider: "openai", Model: "gpt-4.1"}},
		{config.Agent{Provider: "copilot", BYOK: "azure", Model: "dep"}, Rate{Provider: "azure-openai", Model: "dep"}},
		{config.Agent{Provider: "copilot", BYOK: "anthropic", Model: "claude-sonnet-4-5"}, Rate{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{config.Agent{Provider: "command", Run: []string{"x"}}, Rate{Provider: "command", Opaque: true}},
	} {
		if got := RateOf(tt.a); got != tt.want {
			t.Errorf("RateOf(%+v) = %+v, want %+v", tt.a, got, tt.want)
		}
	}
}

func TestSpend(t *testing.T) {
	t.Parallel()
	p := NewPricer(nil, Table{"openai": {"gpt-4.1": {Input: 2, Output: 8}}})
	u := agent.Usage{InputTokens: 1000, OutputTokens: 500}
	s := p.Spend(Rate{Provider: "openai", Model: "gpt-4.1"}, "", u, 1)
	if usd, ok := s.Cost(); !ok || usd != 0.006 || s.Tokens() != 1500 || s.Requests != 1 {
		t.Errorf("priced call = %+v", s)
	}
	none := p.Spend(Rate{Provider: "openai", Model: "unknown"}, "", agent.Usage{}, 0)
	if usd, ok := none.Cost(); !ok || usd != 0 {
		t.Errorf("a call that reached no model = %+v, want a known zero", none)
	}
	unknown := p.Spend(Rate{Provider: "openai", Model: "unknown"}, "", u, 1)
	if _, ok := unknown.Cost(); ok || unknown.USDOrNil() != nil {
		t.Errorf("an unpriced call = %+v, want an unknown cost", unknown)
	}
	if _, ok := s.Add(unknown).Cost(); ok {
		t.Error("a sum with an unpriced call has a known cost")
	}
	cmd := p.Spend(Rate{Provider: "command", Opaque: true}, "", agent.Usage{}, 1)
	if _, ok := cmd.Cost(); ok {
		t.Error("a command agent's attempt has a known cost")
	}
}

func TestFormatUSD(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		in   *float64
		want string
	}{
		{nil, "-"}, {f(0), "$0.00"}, {f(0.0123456), "$0.01235"}, {f(0.000012), "$0.000012"},
		{f(1.5), "$1.50"}, {f(12.404), "$12.40"},
	} {
		if got := FormatUSD(tt.in); got != tt.want {
			t.Errorf("FormatUSD(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
