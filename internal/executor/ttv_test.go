package executor

import (
	"context"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/selection"
)

// claimer answers at once with an output that first appeared after
// firstOutput, claiming ttv.
func claimer(name string, ttv, firstOutput time.Duration) *agenttest.Agent {
	return agenttest.New(name, func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: "# Answer\n\nfrom " + name + "\n", TTV: ttv, FirstOutput: firstOutput}, nil
	})
}

// TestTTVClaimIsBoundedByFirstOutput checks issue 22 item 7: an agent's
// self-reported TTV bought up to 30 points, so a 1 s agent claiming 1 ms
// beat an honest 17 ms one. A claim earlier than the agent's first output
// is raised to it and says so; a claim at or after it stands.
func TestTTVClaimIsBoundedByFirstOutput(t *testing.T) {
	t.Parallel()
	results, err := Run(t.Context(), Options{Tasks: []Task{
		{Agent: claimer("liar", time.Millisecond, time.Second), Provider: config.ProviderCommand},
		{Agent: claimer("honest", 17*time.Millisecond, 17*time.Millisecond), Provider: config.ProviderCommand},
		{Agent: claimer("early", 5*time.Millisecond, 2*time.Millisecond), Provider: config.ProviderCommand},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := byName(results)
	for name, want := range map[string]struct {
		ttv, claimed int64
		source       string
	}{
		"liar":   {1000, 1, TTVBounded},
		"honest": {17, 0, TTVAgent},
		"early":  {5, 0, TTVAgent},
	} {
		r := got[name]
		if r.TTVms != want.ttv || r.TTVClaimedMS != want.claimed || r.TTVSource != want.source {
			t.Errorf("%s: ttv %d ms, claimed %d ms, source %q; want %d, %d, %q", name, r.TTVms, r.TTVClaimedMS, r.TTVSource, want.ttv, want.claimed, want.source)
		}
	}
	var cands []selection.Candidate
	for _, name := range []string{"liar", "honest"} {
		c := got[name].Candidate()
		c.Exec = time.Second // the same measured time: only TTV tells them apart
		cands = append(cands, c)
	}
	sel := selection.Select(cands, config.Selection{Weights: config.Weights{TTV: 30, Exec: 20}})
	if sel.Selected != "honest" {
		t.Errorf("π* = %s, want the honest agent over one whose claim came before its output", sel.Selected)
	}
}
