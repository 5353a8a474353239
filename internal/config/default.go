package config

import "github.com/optr-dev/optr/internal/provider"

// Default returns the configuration used when no config file exists, with
// every default filled in: architecture §4.8's agents, which the registry of
// providers names (provider.Provider.DefaultAgent). First the agents that
// are always there (copilot, on the workflow's token; it names no model
// and uses the Copilot CLI's default), then, in registry order, one agent
// per provider whose key variable is set: codex (openai) when
// OPENAI_API_KEY is set, claude (anthropic) when ANTHROPIC_API_KEY is.
// Those use their provider's example model. getenv is os.Getenv or a
// test's fake.
//
// Default panics if its result does not pass the validation a file gets:
// that is a bug in this package, which TestDefault guards.
func Default(getenv func(string) string) *Config {
	c := &Config{Agents: map[string]Agent{}}
	add := func(p provider.Provider, a Agent) {
		a.Provider = p.Name
		c.Agents[p.DefaultAgent] = a
		c.AgentNames = append(c.AgentNames, p.DefaultAgent)
	}
	for _, p := range provider.Defaults() {
		switch {
		case p.DefaultAlways:
			add(p, Agent{})
		case len(p.KeyEnv) > 0 && getenv(p.KeyEnv[0]) != "":
			add(p, Agent{Model: p.ExampleModel})
		}
	}
	ps := newProblems("")
	applyDefaults(c, ps.written)
	validate(c, ps)
	if err := ps.err(); err != nil {
		panic("config: the embedded default is invalid: " + err.Error())
	}
	return c
}
