package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// TestNoUsageIsUnknown: an answer without usage is an unknown use — null
// in JSON — never a known 0 (architecture §4.17), for every provider's
// wire format, and for the Copilot CLI, whose turn then has no token
// count.
func TestNoUsageIsUnknown(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, a agent.Agent) {
		t.Helper()
		res, err := a.Run(t.Context(), agent.Request{Intent: "x"})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		b, _ := json.Marshal(res.Usage)
		if res.Usage != agent.UnknownUsage || string(b) != "null" {
			t.Errorf("usage %+v (%s); want it unknown, null", res.Usage, b)
		}
	}
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			fake.Script(llmtest.Reply{Text: llmtest.Answer("answered", 1500), NoUsage: true})
			check(t, newAgent(t, fake, p.cfg))
		})
	}
	t.Run("copilot", func(t *testing.T) {
		t.Parallel()
		cli, home := llmtest.CopilotCLI(t)
		fake := llmtest.NewOpenAI(t)
		fake.Script(llmtest.Reply{Text: llmtest.Answer("answered", 1500), NoUsage: true})
		env := copilotEnv(t, cli, home, fake)
		cfg := config.Agent{Provider: config.ProviderCopilot, BYOK: config.BYOKOpenAI, BaseURL: fake.URL, Model: "gpt-4.1", MaxTokens: 2000}
		a, err := llm.New("copilot", cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
		if err != nil {
			t.Fatalf("llm.New: %v", err)
		}
		check(t, a)
	})
}
