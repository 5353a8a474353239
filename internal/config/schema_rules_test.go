package config

import (
	"slices"
	"testing"
)

// TestRulesOneByOne gives Parse and the schema one problem at a time: Parse
// must report it under the expected key, and the schema must reject it
// unless it is one the schema cannot see.
func TestRulesOneByOne(t *testing.T) {
	t.Parallel()
	const agents = "agents:\n  a: {provider: command, run: [./a.sh]}\n  l: {provider: openai, model: gpt-4.1}\n"
	tests := []struct {
		name, src, key string
		schemaBlind    bool
	}{
		{"unknown top-level key", agents + "agent: {}\n", "agent", false},
		{"unknown agent key", "agents:\n  a: {provider: command, run: [./a.sh], cmd: x}\n", "agents.a.cmd", false},
		{"no agents", "agents: {}\n", "agents", false},
		{"unknown provider", "agents:\n  a: {provider: opnai, model: x}\n", "agents.a.provider", false},
		{"missing provider", "agents:\n  a: {model: x}\n", "agents.a.provider", false},
		{"command without run", "agents:\n  a: {provider: command}\n", "agents.a.run", false},
		{"command with empty run", "agents:\n  a: {provider: command, run: []}\n", "agents.a.run", false},
		{"command with blank program", "agents:\n  a: {provider: command, run: [' ']}\n", "agents.a.run[0]", true}, // a one-item prefixItems fails Ajv's strict compile (SchemaStore)
		{"command with model", "agents:\n  a: {provider: command, run: [x], model: m}\n", "agents.a.model", false},
		{"command with role", "agents:\n  a: {provider: command, run: [x], role: r}\n", "agents.a.role", false},
		{"command with OPTR_ env", "agents:\n  a: {provider: command, run: [x], env: {OPTR_HINT: x}}\n", "agents.a.env.OPTR_HINT", false},
		{"llm with run", "agents:\n  a: {provider: openai, model: m, run: [x]}\n", "agents.a.run", false},
		{"llm with env", "agents:\n  a: {provider: anthropic, model: m, env: {A: b}}\n", "agents.a.env", false},
		{"llm without model", "agents:\n  a: {provider: anthropic}\n", "agents.a.model", false},
		{"github-models is retired", "agents:\n  a: {provider: github-models, model: openai/gpt-4.1}\n", "agents.a.provider", false},
		{"copilot base-url without byok", "agents:\n  a: {provider: copilot, base-url: 'https://host/v1'}\n", "agents.a.base-url", false},
		{"copilot unknown byok", "agents:\n  a: {provider: copilot, byok: ollama, base-url: 'https://host/v1', model: m}\n", "agents.a.byok", false},
		{"copilot byok without base-url", "agents:\n  a: {provider: copilot, byok: openai, model: m}\n", "agents.a.base-url", false},
		{"copilot byok without model", "agents:\n  a: {provider: copilot, byok: anthropic, base-url: 'https://host/v1'}\n", "agents.a.model", false},
		{"byok on openai", "agents:\n  a: {provider: openai, model: m, byok: openai}\n", "agents.a.byok", false},
		{"azure without model or deployment", "agents:\n  a: {provider: azure-openai}\n", "agents.a.model", false},
		{"deployment on openai", "agents:\n  a: {provider: openai, model: m, deployment: d}\n", "agents.a.deployment", false},
		{"api-key-env not a name", "agents:\n  a: {provider: openai, model: m, api-key-env: 'MY KEY'}\n", "agents.a.api-key-env", false},
		{"base-url not http", "agents:\n  a: {provider: openai, model: m, base-url: 'ftp://host/v1'}\n", "agents.a.base-url", false},
		{"base-url with credentials", "agents:\n  a: {provider: openai, model: m, base-url: 'https://u:p@host/v1'}\n", "agents.a.base-url", false},
		{"anthropic base-url ending in /v1", "agents:\n  a: {provider: anthropic, model: m, base-url: 'https://proxy.example/v1'}\n", "agents.a.base-url", true},
		{"byok anthropic base-url ending in /v1", "agents:\n  a: {provider: copilot, byok: anthropic, model: m, base-url: 'https://proxy.example/v1'}\n", "agents.a.base-url", true},
		{"openai api messages", "agents:\n  a: {provider: openai, model: m, api: messages}\n", "agents.a.api", false},
		{"api on anthropic", "agents:\n  a: {provider: anthropic, model: m, api: responses}\n", "agents.a.api", false},
		{"gemini without model", "agents:\n  a: {provider: gemini}\n", "agents.a.model", false},
		{"max-tokens zero", "agents:\n  a: {provider: openai, model: m, max-tokens: 0}\n", "agents.a.max-tokens", false},
		{"timeout zero", "agents:\n  a: {provider: command, run: [x], timeout: 0s}\n", "agents.a.timeout", false},
		{"timeout without unit", "agents:\n  a: {provider: command, run: [x], timeout: '10'}\n", "agents.a.timeout", false},
		{"attempt-timeout above timeout", "agents:\n  a: {provider: command, run: [x], timeout: 1m, attempt-timeout: 2m}\n", "agents.a.attempt-timeout", true},
		{"agent name with capitals", "agents:\n  A: {provider: command, run: [x]}\n", "agents.A", false},
		{"agent name with a slash", "agents:\n  a/b: {provider: command, run: [x]}\n", "agents.a/b", false},

		{"unknown check", agents + "constraints:\n  c: {check: contain}\n", "constraints.c.check", false},
		{"contains without value", agents + "constraints:\n  c: {check: contains}\n", "constraints.c.value", false},
		{"contains with empty value", agents + "constraints:\n  c: {check: contains, value: ''}\n", "constraints.c.value", false},
		{"contains with pattern", agents + "constraints:\n  c: {check: contains, value: x, pattern: x}\n", "constraints.c.pattern", false},
		{"max-length zero", agents + "constraints:\n  c: {check: max-length, value: 0}\n", "constraints.c.value", false},
		{"max-length words", agents + "constraints:\n  c: {check: max-length, value: ten}\n", "constraints.c.value", false},
		{"regex without pattern", agents + "constraints:\n  c: {check: regex}\n", "constraints.c.pattern", false},
		{"regex that does not compile", agents + "constraints:\n  c: {check: regex, pattern: '(?<name>x)('}\n", "constraints.c.pattern", true},
		{"json with value", agents + "constraints:\n  c: {check: json, value: x}\n", "constraints.c.value", false},
		{"json-schema without schema", agents + "constraints:\n  c: {check: json-schema}\n", "constraints.c.schema", false},
		{"json-schema absolute", agents + "constraints:\n  c: {check: json-schema, schema: /s.json}\n", "constraints.c.schema", false},
		{"json-schema leaving the workspace", agents + "constraints:\n  c: {check: json-schema, schema: ../s.json}\n", "constraints.c.schema", false},
		{"command check without run", agents + "constraints:\n  c: {check: command}\n", "constraints.c.run", false},
		{"judge without agent", agents + "constraints:\n  c: {check: judge}\n", "constraints.c.agent", false},
		{"judge naming nobody", agents + "constraints:\n  c: {check: judge, agent: nobody}\n", "constraints.c.agent", true},
		{"judge naming a command agent", agents + "constraints:\n  c: {check: judge, agent: a}\n", "constraints.c.agent", true},
		{"timeout on a regex check", agents + "constraints:\n  c: {check: regex, pattern: x, timeout: 1m}\n", "constraints.c.timeout", false},
		{"hard as a string", agents + "constraints:\n  c: {check: json, hard: 'no'}\n", "constraints.c.hard", false},

		{"unknown mode", agents + "pipelines:\n  p: {mode: fanout}\n", "pipelines.p.mode", false},
		{"stages without agents", agents + "pipelines:\n  p: {mode: stages}\n", "pipelines.p.agents", false},
		{"pipeline naming nobody", agents + "pipelines:\n  p: {agents: [a, nobody]}\n", "pipelines.p.agents[1]", true},
		{"pipeline listing an agent twice", agents + "pipelines:\n  p: {agents: [a, a]}\n", "pipelines.p.agents[1]", false},
		{"pipeline naming no constraint", agents + "pipelines:\n  p: {constraints: [none]}\n", "pipelines.p.constraints[0]", true},
		{"threshold on select", agents + "pipelines:\n  p: {threshold: 0.5}\n", "pipelines.p.threshold", false},
		{"threshold above one", agents + "pipelines:\n  p: {mode: delegate, threshold: 2}\n", "pipelines.p.threshold", false},
		{"coordinator naming nobody", agents + "pipelines:\n  p: {mode: delegate, coordinator: nobody}\n", "pipelines.p.coordinator", true},
		{"max-topics on select", agents + "pipelines:\n  p: {max-topics: 2}\n", "pipelines.p.max-topics", false},
		{"candidates on stages", agents + "pipelines:\n  p: {mode: stages, agents: [a], candidates: 2}\n", "pipelines.p.candidates", false},
		{"max-topics zero", agents + "pipelines:\n  p: {mode: delegate, max-topics: 0}\n", "pipelines.p.max-topics", false},
		{"max-topics above the matrix", agents + "pipelines:\n  p: {mode: delegate, max-topics: 257}\n", "pipelines.p.max-topics", false},
		{"max-topics as a string", agents + "pipelines:\n  p: {mode: delegate, max-topics: 'four'}\n", "pipelines.p.max-topics", false},
		{"candidates zero", agents + "pipelines:\n  p: {mode: delegate, candidates: 0}\n", "pipelines.p.candidates", false},
		{"more candidates than specialists", agents + "pipelines:\n  p: {mode: delegate, agents: [a], candidates: 2}\n", "pipelines.p.candidates", true},

		{"negative weight", agents + "selection: {weights: {ttv: -1}}\n", "selection.weights.ttv", false},
		{"all weights zero", agents + "selection: {weights: {invariants: 0, ttv: 0, exec: 0, preference: 0}}\n", "selection.weights", false},
		{"preference naming nobody", agents + "selection: {preference: [nobody]}\n", "selection.preference[0]", true},
		{"unknown no-admissible policy", agents + "selection: {on-no-admissible: retry}\n", "selection.on-no-admissible", false},
		{"unknown checkpoint trigger", agents + "checkpoints: {recommend: {LATER: 1}}\n", "checkpoints.recommend.LATER", false},
		{"recommend option zero", agents + "checkpoints: {recommend: {HICCUP: 0}}\n", "checkpoints.recommend.HICCUP", false},
		{"NO_ADMISSIBLE has three options", agents + "checkpoints: {recommend: {NO_ADMISSIBLE: 4}}\n", "checkpoints.recommend.NO_ADMISSIBLE", false},
		{"mention without @", agents + "escalation: {mention: [octocat]}\n", "escalation.mention[0]", false},
		{"recovery attempts zero", agents + "recovery: {attempts: 0}\n", "recovery.attempts", false},
		{"negative max-alternatives", agents + "recovery: {max-alternatives: -1}\n", "recovery.max-alternatives", false},
		{"analyzer naming a command agent", agents + "recovery: {analyzer: a}\n", "recovery.analyzer", true},
		{"base-delay above max-delay", agents + "recovery: {base-delay: 1m, max-delay: 1s}\n", "recovery.base-delay", true},
		{"branch with ..", agents + "ledger: {branch: 'a..b'}\n", "ledger.branch", false},
		{"branch with a space", agents + "ledger: {branch: 'a b'}\n", "ledger.branch", false},
		{"empty branch", agents + "ledger: {branch: ''}\n", "ledger.branch", false},
		{"stuck-after as a number", agents + "watcher: {stuck-after: 300}\n", "watcher.stuck-after", false},
		{"max-failures zero", agents + "watcher: {max-failures: 0}\n", "watcher.max-failures", false},
		{"negative budget", agents + "budget: {max-tokens: -1}\n", "budget.max-tokens", false},
		{"negative daily tokens", agents + "budget: {max-tokens-per-day: -5}\n", "budget.max-tokens-per-day", false},
		{"negative run dollars", agents + "budget: {max-usd-per-run: -0.5}\n", "budget.max-usd-per-run", false},
		{"negative monthly dollars", agents + "budget: {max-usd-per-month: -1}\n", "budget.max-usd-per-month", false},
		{"negative request price", agents + "prices: {gpt-4.1: {request: -0.04}}\n", "prices.gpt-4.1.request", false},
		{"negative price", agents + "prices: {gpt-4.1: {input: -1, output: 1}}\n", "prices.gpt-4.1.input", false},
		{"unknown price key", agents + "prices: {gpt-4.1: {cached: 1}}\n", "prices.gpt-4.1.cached", false},
		{"max-parallel negative", agents + "executor: {max-parallel: -1}\n", "executor.max-parallel", false},
		{"max-output zero", agents + "executor: {max-output: 0}\n", "executor.max-output", false},
	}
	s := compileSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("optr.yml", []byte(tt.src))
			var keys []string
			for _, e := range Errors(err) {
				keys = append(keys, e.Key)
			}
			if !slices.Contains(keys, tt.key) {
				t.Errorf("Parse reported keys %q, want %q; error:\n%v", keys, tt.key, err)
			}
			serr := validateYAML(s, []byte(tt.src))
			switch {
			case tt.schemaBlind && serr != nil:
				t.Errorf("schema rejects a problem marked as invisible to it: %v", serr)
			case !tt.schemaBlind && serr == nil:
				t.Errorf("schema accepts it; Parse says: %v", err)
			}
		})
	}
}
