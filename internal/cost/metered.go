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
// request refused before any work is not billed). An opaque agent's
// attempt always counts, its cost unknown.
func (a metered) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	resp, err := a.Agent.Run(ctx, req)
	var requests int64
	if err == nil || resp.Usage.Total() > 0 || a.r.Opaque {
		requests = 1
	}
	a.m.Call(ctx, a.Agent.Name(), a.r, resp.Model, resp.Usage, requests)
	return resp, err
}
