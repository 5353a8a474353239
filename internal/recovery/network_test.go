package recovery

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

// Every attempt's hosts are in the outcome, not only the last one's: a
// host refused on a failed attempt stays on record when a later attempt
// succeeds.
func TestOutcomeKeepsEveryAttemptsHosts(t *testing.T) {
	t.Parallel()
	first := func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Network: []proxy.Host{
			{Host: "evil.example", Port: 443, Allowed: false, Reason: "not in sandbox.network", Requests: 1},
			{Host: "api.github.com", Port: 443, Allowed: true, Requests: 2},
		}}, unavailable()
	}
	second := func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: "done", Network: []proxy.Host{{Host: "api.github.com", Port: 443, Allowed: true, Requests: 1}}}, nil
	}
	p := Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second}
	p.Clock, p.Rand = clocktest.New(clocktest.Start), func() float64 { return 0.5 }
	out := p.Run(t.Context(), agenttest.New("a", agenttest.Steps(t, first, second)), agent.Request{}, nil)
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := []proxy.Host{
		{Host: "api.github.com", Port: 443, Allowed: true, Requests: 3},
		{Host: "evil.example", Port: 443, Allowed: false, Reason: "not in sandbox.network", Requests: 1},
	}
	if diff := cmp.Diff(want, out.Response.Network); diff != "" {
		t.Errorf("network (-want +got):\n%s", diff)
	}
}
