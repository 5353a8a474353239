package config

// The embedded default's agents (DESIGN §4.8: with no config, one copilot
// agent on the workflow's token, plus an openai and an anthropic agent when
// their keys are present). The copilot agent names no model: it uses the
// Copilot CLI's default.
const (
	defaultOpenAIModel    = "gpt-4.1"
	defaultAnthropicModel = "claude-sonnet-4-5"
)

// Default returns the configuration used when no config file exists: a
// copilot agent named copilot, plus codex (openai) when
// OPENAI_API_KEY is set and claude (anthropic) when ANTHROPIC_API_KEY is
// set, with every default filled in. getenv is os.Getenv or a test's fake.
//
// Default panics if its result does not pass the validation a file gets:
// that is a bug in this package, which TestDefault guards.
func Default(getenv func(string) string) *Config {
	c := &Config{Agents: map[string]Agent{}}
	add := func(name string, a Agent) {
		c.Agents[name] = a
		c.AgentNames = append(c.AgentNames, name)
	}
	add("copilot", Agent{Provider: ProviderCopilot})
	if getenv("OPENAI_API_KEY") != "" {
		add("codex", Agent{Provider: ProviderOpenAI, Model: defaultOpenAIModel})
	}
	if getenv("ANTHROPIC_API_KEY") != "" {
		add("claude", Agent{Provider: ProviderAnthropic, Model: defaultAnthropicModel})
	}
	ps := newProblems("")
	applyDefaults(c, ps.written)
	validate(c, ps)
	if err := ps.err(); err != nil {
		panic("config: the embedded default is invalid: " + err.Error())
	}
	return c
}
