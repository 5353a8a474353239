package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefault(t *testing.T) {
	t.Parallel()
	copilot := llmAgent("copilot", "")
	codex := llmAgent("openai", "gpt-4.1")
	claude := llmAgent("anthropic", "claude-sonnet-4-5")
	tests := []struct {
		name string
		env  map[string]string
		want *Config
	}{
		{"no keys: copilot alone", nil, withAgents(base(), "copilot", copilot)},
		{"OpenAI key adds codex", map[string]string{"OPENAI_API_KEY": "sk-x"}, withAgents(base(), "copilot", copilot, "codex", codex)},
		{"Anthropic key adds claude", map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}, withAgents(base(), "copilot", copilot, "claude", claude)},
		{
			"both keys", map[string]string{"OPENAI_API_KEY": "sk-x", "ANTHROPIC_API_KEY": "sk-ant"},
			withAgents(base(), "copilot", copilot, "codex", codex, "claude", claude),
		},
		{"an empty key counts as absent", map[string]string{"OPENAI_API_KEY": ""}, withAgents(base(), "copilot", copilot)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Default(func(k string) string { return tt.env[k] })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Default mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
