package config

import (
	"time"
)

// The documented defaults, written out by hand rather than taken from
// defaults.go, so that a changed default fails a test.

func minutes(n int) Duration { return Duration(time.Duration(n) * time.Minute) }

func seconds(n int) Duration { return Duration(time.Duration(n) * time.Second) }

// base returns what every config holds besides its agents, constraints
// and pipelines when the file sets nothing else.
func base() *Config {
	return &Config{
		Selection: Selection{
			Weights:        Weights{Invariants: 40, TTV: 30, Exec: 20, Preference: 10},
			OnNoAdmissible: "checkpoint",
		},
		Recovery:  Recovery{Attempts: 3, MaxAlternatives: 2, BaseDelay: seconds(1), MaxDelay: seconds(30), MaxTotal: minutes(10)},
		Watcher:   Watcher{StuckAfter: minutes(5), MaxFailures: 3, MaxRestarts: 1},
		Ledger:    Ledger{Branch: "optr-ledger"},
		Executor:  Executor{MaxParallel: 0, MaxOutput: 64 << 20},
		Budget:    Budget{MaxIntentConstraints: 8},
		Changes:   Changes{Mode: "none", Protect: []string{".github/workflows/**", ".optr/**"}, MaxFiles: 50, Draft: true},
		Sandbox:   Sandbox{Mode: "auto", Network: []string{"defaults"}, Read: []string{}},
		Detection: Detection{OnFinding: OnFindingCheckpoint},
	}
}

// commandAgent is a command agent with the default timeouts.
func commandAgent(run ...string) Agent {
	return Agent{Provider: "command", Run: run, Timeout: minutes(5), AttemptTimeout: minutes(5)}
}

// llmAgent is an LLM agent with the default timeouts and max-tokens.
func llmAgent(provider, model string) Agent {
	return Agent{Provider: provider, Model: model, MaxTokens: 4096, Timeout: minutes(5), AttemptTimeout: minutes(5)}
}

// withAgents adds agents to c in the given order (name, agent, name, …).
func withAgents(c *Config, pairs ...any) *Config {
	c.Agents = map[string]Agent{}
	for i := 0; i < len(pairs); i += 2 {
		name := pairs[i].(string)
		c.Agents[name] = pairs[i+1].(Agent)
		c.AgentNames = append(c.AgentNames, name)
	}
	return c
}

// withConstraints adds constraints to c in the given order.
func withConstraints(c *Config, pairs ...any) *Config {
	c.Constraints = map[string]Constraint{}
	for i := 0; i < len(pairs); i += 2 {
		name := pairs[i].(string)
		c.Constraints[name] = pairs[i+1].(Constraint)
		c.ConstraintNames = append(c.ConstraintNames, name)
	}
	return c
}
