package cost

import (
	"context"

	"github.com/optr-dev/optr/internal/agent"
)

// Metered wraps a so that every call it makes is priced at r and charged
// to m: to the agent ForAgent put on the call's context, else to a itself
// (a judge or analyzer called outside any agent's work).
func Metered(a agent.Agent, m *Meter, r Rate) agent.Agent {
	return metered{Agent: a, m: m, r: r}
}

type metered struct {
	agent.Agent
	m *Meter
	r Rate
}

// Preflight implements agent.Preflighter for the wrapped agent.
func (a metered) Preflight() error { return agent.Preflight(a.Agent) }

// Run runs the wrapped agent and charges the attempt: its tokens, and one
// request when it reached a model (it answered, or it used tokens; a
// request refused before any work is not billed). The part of the
// attempt's use already charged as it happened (resp.Metered: the model
// gateway's requests, each priced by the model that answered it) is not
// charged again; what is left of an opaque agent's attempt — a program
// that may call any model unseen — is of unknown use (agent.UnknownUsage
// when the agent said nothing).
func (a metered) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	resp, err := a.Agent.Run(ctx, req)
	rest := resp.Usage.Sub(resp.Metered)
	var requests int64
	switch {
	case len(resp.Calls) > 0 || resp.Metered != (agent.Usage{}):
		// The gateway counted this attempt's requests.
	case a.r.Opaque:
		if rest == (agent.Usage{}) {
			rest = agent.UnknownUsage
		}
	case err == nil || rest.Total() > 0:
		requests = 1
	}
	a.m.Call(ctx, a.Agent.Name(), a.r, resp.Model, rest, requests)
	return resp, err
}
