package command

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/gateway"
	"github.com/optr-dev/optr/internal/sandbox"
	sandboxenv "github.com/optr-dev/optr/internal/sandbox/env"
)

// gatewayRun is one attempt's use of the model gateway (architecture
// §4.18): its Tab, while it is open.
type gatewayRun struct {
	badge *gateway.Badge
	tab   *gateway.Tab
}

// openGateway opens the attempt's record at the gateway; nil for an agent
// without one.
func (a *Agent) openGateway(ctx context.Context, req agent.Request) *gatewayRun {
	if a.opts.Gateway == nil {
		return nil
	}
	return &gatewayRun{badge: a.opts.Gateway, tab: a.opts.Gateway.Open(ctx, req.Progress)}
}

// local is what serves the attempt's requests to optr at its proxy's
// address: the gateway's Tab (nil without one).
func (g *gatewayRun) local(p *sandbox.Process) {
	if g != nil {
		p.Local = g.tab
	}
}

// env adds the gateway's variables to env: each provider's base URL at
// the address the process reaches optr at — its proxy's (launch), else
// the gateway's own listener (no sandbox) — and the placeholder keys.
func (g *gatewayRun) env(env []string, launch *sandbox.Launch) ([]string, error) {
	if g == nil {
		return env, nil
	}
	addr := ""
	if launch != nil {
		addr = launch.Addr()
	}
	if addr == "" {
		var err error
		if addr, err = g.badge.Listen(); err != nil {
			return env, err
		}
	}
	return sandboxenv.Merge(env, g.tab.Env(addr)), nil
}

// close ends the attempt's record (once; later calls do nothing).
func (g *gatewayRun) close() gateway.Record {
	if g == nil || g.tab == nil {
		return gateway.Record{}
	}
	rec := g.tab.Close()
	g.tab = nil
	return rec
}

// meter puts what the attempt spent in resp and says how the budget
// changed err, the attempt's failure. Without a gateway the attempt's use
// is unknown: a program may call any model unseen, and unknown is never
// 0. With one, it is what the gateway metered — every call it forwarded,
// already charged to the run's meter (resp.Metered) — and what went to a
// model API past it (a base URL of the agent's own that sandbox.network
// lets through) is unknown. A call the budget refused fails an attempt
// that failed: the refusal, with its figures, is why.
func (g *gatewayRun) meter(ctx context.Context, resp *agent.Response, program string, err error) error {
	if g == nil {
		resp.Usage = agent.UnknownUsage
		return err
	}
	rec := g.close()
	resp.Calls, resp.CallsOmitted = rec.Calls, rec.Omitted
	resp.Usage, resp.Metered = rec.Usage, rec.Usage
	if n := g.badge.Direct(resp.Network); n > 0 {
		resp.Usage.Unknown += n
	}
	if rec.Refused == nil || err == nil || ctx.Err() != nil {
		return err
	}
	class := agent.Fatal
	var ae *agent.Error
	if errors.As(err, &ae) {
		class = ae.Class
	}
	return &agent.Error{Class: class, Reason: "budget_exhausted", Err: fmt.Errorf("%w; then %s failed: %v", rec.Refused, program, err)}
}

// mainModel is the model that wrote most of an attempt's answers through
// the gateway — the most output tokens, else the most calls — for an agent
// whose config names none: its result, and its change's Assisted-by
// trailer, name it rather than no model. "" when no call was answered.
func mainModel(calls []agent.Call) string {
	type tally struct{ out, n int64 }
	by := map[string]*tally{}
	best := ""
	for _, c := range calls {
		if c.Model == "" || c.Status != http.StatusOK {
			continue
		}
		t := by[c.Model]
		if t == nil {
			t = &tally{}
			by[c.Model] = t
		}
		t.out, t.n = t.out+c.Usage.OutputTokens, t.n+1
		if b := by[best]; b == nil || t.out > b.out || (t.out == b.out && t.n > b.n) {
			best = c.Model
		}
	}
	return best
}
