package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/config"
)

// TestDefaultHosts: "defaults" opens GitHub and the API of every
// configured LLM provider and of every provider key passed to a command
// agent: the provider's own host, or the host its endpoint variable names
// (azure-openai), and every agent's base-url.
func TestDefaultHosts(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{
		AgentNames: []string{"codex", "claude", "azure", "copilot", "cli", "proxied"},
		Agents: map[string]config.Agent{
			"codex":   {Provider: config.ProviderOpenAI, Model: "m"},
			"claude":  {Provider: config.ProviderAnthropic, Model: "m"},
			"azure":   {Provider: config.ProviderAzureOpenAI, Model: "m"},
			"copilot": {Provider: config.ProviderCopilot},
			"cli":     {Provider: config.ProviderCommand, Run: []string{"codex"}, PassEnv: []string{"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "MY_TOOL_TOKEN"}},
			"proxied": {Provider: config.ProviderAnthropic, Model: "m", BaseURL: "https://llm-proxy.example:8443/v1"},
		},
	}
	environ := []string{"AZURE_OPENAI_ENDPOINT=https://res.openai.azure.com", "GITHUB_SERVER_URL=https://ghe.example"}
	want := append(append([]string(nil), githubHosts...),
		"ghe.example", "api.openai.com", "api.anthropic.com", "res.openai.azure.com", "llm-proxy.example:8443")
	if diff := cmp.Diff(want, Hosts(cfg, []string{config.NetworkDefaults}, environ)); diff != "" {
		t.Errorf("Hosts(defaults) (-want +got):\n%s", diff)
	}
}
