package config

import (
	"testing"
	"time"
)

// An agent written as its preset alone is a command agent with the
// preset's timeout; what it writes besides overrides the preset's.
func TestPresetDefaults(t *testing.T) {
	t.Parallel()
	c, err := Parse("optr.yml", []byte(`agents:
  claude: { preset: claude-code }
  codex: { preset: codex, model: gpt-5-codex, timeout: 10m, run: [codex, exec, --json] }
  copilot: { provider: command, preset: copilot-cli, model: gpt-5 }
`))
	if err != nil {
		t.Fatal(err)
	}
	claude, codex, copilot := c.Agents["claude"], c.Agents["codex"], c.Agents["copilot"]
	if claude.Provider != ProviderCommand || claude.Timeout.D() != 30*time.Minute || claude.AttemptTimeout != claude.Timeout || len(claude.Run) != 0 {
		t.Errorf("claude = %+v, want a command agent with the preset's 30m timeout and its command line", claude)
	}
	if codex.Timeout.D() != 10*time.Minute || codex.Model != "gpt-5-codex" || len(codex.Run) != 3 {
		t.Errorf("codex = %+v, want its own timeout, model and run", codex)
	}
	if copilot.Provider != ProviderCommand || copilot.Preset != "copilot-cli" {
		t.Errorf("copilot = %+v", copilot)
	}
}
