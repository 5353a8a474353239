package cost

import (
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/lazyregexp"
)

// Price is what a model costs in US dollars: per million input tokens,
// per million output tokens, and per request. The built-in table prices
// tokens only; Request serves a prices: entry for a flat per-call rate
// (a Copilot plan still billed in premium requests: the model's
// multiplier × the price of a premium request).
type Price struct {
	Input   float64
	Output  float64
	Request float64
}

// Of is the cost of u and requests at p.
func (p Price) Of(u agent.Usage, requests int64) float64 {
	return (float64(u.InputTokens)*p.Input+float64(u.OutputTokens)*p.Output)/1e6 + float64(requests)*p.Request
}

// Table is a price list: by provider (package provider's names), by model
// id.
type Table map[string]map[string]Price

// Lookup returns the price of model at provider: the model id as given,
// else its normal form (ModelKey).
func (t Table) Lookup(provider, model string) (Price, bool) {
	models := t[provider]
	if models == nil || model == "" {
		return Price{}, false
	}
	if p, ok := models[model]; ok {
		return p, true
	}
	p, ok := models[ModelKey(model)]
	return p, ok
}

// dated matches the snapshot suffix providers add to a model id:
// gpt-4.1-2025-04-14, claude-sonnet-4-5-20250929.
var dated = lazyregexp.New(`-(\d{4}-\d{2}-\d{2}|\d{8})$`)

// ModelKey is the form a model id takes in a price table: lower case,
// spaces as hyphens ("Claude Sonnet 4.5" is claude-sonnet-4.5), without a
// dated snapshot suffix (the snapshot costs what its model costs).
func ModelKey(model string) string {
	k := strings.ToLower(strings.TrimSpace(model))
	k = strings.Join(strings.Fields(k), "-")
	return dated.ReplaceAllString(k, "")
}
