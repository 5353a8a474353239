package cost

import (
	"context"
	"maps"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
)

// Meter adds up one run's spend, per agent and in total, and says when the
// run's caps are reached. It is safe for concurrent use; a nil *Meter
// counts nothing and caps nothing.
type Meter struct {
	pricer Pricer

	mu     sync.Mutex
	total  Spend
	agents map[string]Spend
	caps   []Cap
	// refused is the figures of the first call Allow refused.
	refused []string
}

// NewMeter returns a meter that prices calls with p and stops the run at
// the first of caps it reaches.
func NewMeter(p Pricer, caps ...Cap) *Meter {
	return &Meter{pricer: p, agents: map[string]Spend{}, caps: caps}
}

// Limit adds caps to the meter's.
func (m *Meter) Limit(caps ...Cap) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.caps = append(m.caps, caps...)
}

// Call prices one call of an agent rated r, answered by the model reported
// ("" when the provider did not say), and charges it to ctx's agent
// (ForAgent), else to fallback. It returns the call's spend.
func (m *Meter) Call(ctx context.Context, fallback string, r Rate, reported string, u agent.Usage, requests int64) Spend {
	if m == nil {
		return Spend{}
	}
	s := m.pricer.Spend(r, reported, u, requests)
	name := AgentOf(ctx)
	if name == "" {
		name = fallback
	}
	m.charge(name, s)
	return s
}

// Charge adds s, the spend of calls made without an agent.Agent (a
// detector's request to a model), to the run's total and to ctx's agent
// (ForAgent). Price it with Pricer first.
func (m *Meter) Charge(ctx context.Context, s Spend) {
	if m == nil {
		return
	}
	m.charge(AgentOf(ctx), s)
}

func (m *Meter) charge(name string, s Spend) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total = m.total.Add(s)
	m.agents[name] = m.agents[name].Add(s)
}

// Pricer is the meter's pricer, for a caller that prices its own calls.
func (m *Meter) Pricer() Pricer {
	if m == nil {
		return Pricer{}
	}
	return m.pricer
}

// Total is everything the run spent.
func (m *Meter) Total() Spend {
	if m == nil {
		return Spend{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Agent is what was spent for the agent (result) name: its attempts, and
// the judges, analyses and detections of its output.
func (m *Meter) Agent(name string) Spend {
	if m == nil {
		return Spend{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.agents[name]
}

// Account is what was spent for the agent name, and whether anything was
// charged to it at all (a call that spent nothing is charged too).
func (m *Meter) Account(name string) (Spend, bool) {
	if m == nil {
		return Spend{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.agents[name]
	return s, ok
}

// Agents is what was spent per agent; calls charged to no agent are
// under "".
func (m *Meter) Agents() map[string]Spend {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.agents)
}

// Restore sets what was spent, per agent, to a saved account (a paused
// run resumed in another process); the total is their sum.
func (m *Meter) Restore(agents map[string]Spend) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.agents, m.total = map[string]Spend{}, Spend{}
	for name, s := range agents {
		m.agents[name] = s
		m.total = m.total.Add(s)
	}
}

// Exhausted reports whether a cap is reached: no new attempt, judge or
// analysis may start (those running finish, so a run may pass a cap by
// what they spend).
func (m *Meter) Exhausted() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.caps {
		if c.Reached(m.total) {
			return true
		}
	}
	return false
}

// Allow says whether a call expected to spend next may start: an error
// (a *CapError, with the figures) when a cap is reached already or next
// would take the run past one. next is an estimate — what the call's
// prompt alone costs — or nothing when there is none.
func (m *Meter) Allow(next Spend) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var passed []string
	for _, c := range m.caps {
		if c.Passed(m.total, next) {
			passed = append(passed, c.DescribeNext(m.total, next))
		}
	}
	if len(passed) > 0 {
		if m.refused == nil {
			m.refused = passed
		}
		return &CapError{Spent: passed}
	}
	return nil
}

// Spent says how the reached caps stand ("budget.max-tokens: 1234 tokens
// of 1000 tokens spent this run"), else those the first call Allow
// refused would have passed, with what it would have added, else how
// every cap stands.
func (m *Meter) Spent() string {
	if m == nil {
		return "no budget is set"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var reached, all []string
	for _, c := range m.caps {
		all = append(all, c.Describe(m.total))
		if c.Reached(m.total) {
			reached = append(reached, c.Describe(m.total))
		}
	}
	switch {
	case len(reached) > 0:
		return strings.Join(reached, "; ")
	case len(m.refused) > 0:
		return strings.Join(m.refused, "; ")
	case len(all) > 0:
		return strings.Join(all, "; ")
	}
	return "no budget is set"
}

type agentKey struct{}

// ForAgent returns ctx carrying the name of the agent (the result) that
// the calls made under it serve: its attempts, and the judges, analyses
// and detections of its output.
func ForAgent(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, agentKey{}, name)
}

// AgentOf is the agent ForAgent put on ctx, "" when none.
func AgentOf(ctx context.Context) string {
	name, _ := ctx.Value(agentKey{}).(string)
	return name
}
