package cost

import (
	"maps"
	"slices"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// Rate says how one agent's calls are priced: by the table of Provider,
// for the model the provider reports, else Model (the model the agent
// names). Opaque marks an agent whose spend optr cannot see (a command
// agent may call anything): its cost is unknown.
type Rate struct {
	Provider string
	Model    string
	Opaque   bool
}

// RateOf is the rate of a configured agent. A copilot agent with byok:
// is priced by its own endpoint's provider (the registry's ForBYOK):
// Copilot bills it nothing. An agent of a provider that is no LLM (a
// command) is opaque.
func RateOf(a config.Agent) Rate {
	if !provider.IsLLM(a.Provider) {
		return Rate{Provider: a.Provider, Opaque: true}
	}
	if a.Provider == provider.Copilot && a.BYOK != "" {
		if p, ok := provider.ForBYOK(a.BYOK); ok {
			return Rate{Provider: p.Name, Model: a.Model}
		}
	}
	return Rate{Provider: a.Provider, Model: a.Model}
}

// Pricer prices calls: a config's prices: first, then a table.
type Pricer struct {
	overrides map[string]Price // by model id as written
	byKey     map[string]Price // by ModelKey of the id
	table     Table
}

// NewPricer is the pricer of a config's prices: (by model id) over table.
func NewPricer(prices map[string]config.Price, table Table) Pricer {
	p := Pricer{overrides: map[string]Price{}, byKey: map[string]Price{}, table: table}
	models := slices.Sorted(maps.Keys(prices))
	for _, model := range models {
		c := prices[model]
		pr := Price{Input: c.Input, Output: c.Output, Request: c.Request}
		p.overrides[model] = pr
		if _, dup := p.byKey[ModelKey(model)]; !dup {
			p.byKey[ModelKey(model)] = pr
		}
	}
	return p
}

// Price returns the price of a call at r that the provider says reported
// answered ("" when it did not say). prices: covers any provider's model,
// by the reported model or the agent's; the table covers r's provider.
func (p Pricer) Price(r Rate, reported string) (Price, bool) {
	if r.Opaque {
		return Price{}, false
	}
	models := []string{reported, r.Model}
	for _, m := range models {
		if m == "" {
			continue
		}
		if pr, ok := p.overrides[m]; ok {
			return pr, true
		}
	}
	for _, m := range models {
		if pr, ok := p.byKey[ModelKey(m)]; ok && m != "" {
			return pr, true
		}
	}
	for _, m := range models {
		if pr, ok := p.table.Lookup(r.Provider, m); ok {
			return pr, true
		}
	}
	return Price{}, false
}

// Spend is the spend of one call at r (or of an attempt's calls, summed):
// priced when a price covers it, else unpriced. Calls whose use is unknown
// (u.Unknown) cost what nobody knows, priced or not; a call that reached
// no model (no tokens, no request, nothing unknown) spent nothing.
func (p Pricer) Spend(r Rate, reported string, u agent.Usage, requests int64) Spend {
	s := Spend{Usage: u, Requests: requests}
	if u.Total() == 0 && (requests == 0 || u.Unknown > 0 || r.Opaque) {
		// Nothing known to price: no call, or only calls of unknown use.
		if r.Opaque && u.Unknown == 0 && requests > 0 {
			s.Usage.Unknown = requests // an opaque agent's calls, unseen
		}
		return s
	}
	pr, ok := p.Price(r, reported)
	if !ok {
		s.Unpriced = 1
		return s
	}
	s.USD, s.Priced = pr.Of(u, requests), 1
	return s
}
