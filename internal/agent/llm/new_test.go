package llm_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

func TestNewBadConfig(t *testing.T) {
	t.Parallel()
	full := map[string]string{
		"OPENAI_API_KEY": "sk-o", "GITHUB_TOKEN": "ghs-g", "AZURE_OPENAI_API_KEY": "az-k",
		"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com", "ANTHROPIC_API_KEY": "sk-ant",
	}
	without := func(name string) map[string]string {
		env := map[string]string{}
		for k, v := range full {
			if k != name {
				env[k] = v
			}
		}
		return env
	}
	tests := []struct {
		name string
		cfg  config.Agent
		env  map[string]string
		// mention must all appear in the message.
		mention []string
	}{
		{"openai without key", config.Agent{Provider: "openai", Model: "gpt-4.1"}, without("OPENAI_API_KEY"), []string{"OPENAI_API_KEY", "api-key-env"}},
		{"copilot byok without key", config.Agent{Provider: "copilot", BYOK: "openai", BaseURL: "https://llm.example/v1", Model: "gpt-4.1"}, without("OPENAI_API_KEY"), []string{"OPENAI_API_KEY"}},
		{"copilot byok without model", config.Agent{Provider: "copilot", BYOK: "anthropic", BaseURL: "https://llm.example/v1"}, full, []string{"model"}},
		{"copilot byok without base-url", config.Agent{Provider: "copilot", BYOK: "openai", Model: "gpt-4.1"}, full, []string{"base-url"}},
		{"github-models is no provider any more", config.Agent{Provider: "github-models", Model: "openai/gpt-4.1"}, full, []string{"copilot"}},
		{"azure without key", config.Agent{Provider: "azure-openai", Model: "dep"}, without("AZURE_OPENAI_API_KEY"), []string{"AZURE_OPENAI_API_KEY"}},
		{"anthropic without key", config.Agent{Provider: "anthropic", Model: "claude"}, without("ANTHROPIC_API_KEY"), []string{"ANTHROPIC_API_KEY"}},
		{"api-key-env names an empty variable", config.Agent{Provider: "openai", Model: "gpt-4.1", APIKeyEnv: "CODEX_KEY"}, full, []string{"CODEX_KEY"}},
		{"openai without model", config.Agent{Provider: "openai"}, full, []string{"model"}},
		{"anthropic without model", config.Agent{Provider: "anthropic"}, full, []string{"model"}},
		{"azure without deployment", config.Agent{Provider: "azure-openai"}, full, []string{"deployment"}},
		{"azure without endpoint", config.Agent{Provider: "azure-openai", Model: "dep"}, without("AZURE_OPENAI_ENDPOINT"), []string{"AZURE_OPENAI_ENDPOINT"}},
		{"azure over plain http", config.Agent{Provider: "azure-openai", Model: "dep", BaseURL: "http://res.openai.azure.com"}, full, []string{"https"}},
		{"base-url not a URL", config.Agent{Provider: "openai", Model: "gpt-4.1", BaseURL: "api.openai.com/v1"}, full, []string{"base-url", "api.openai.com/v1"}},
		{"OPENAI_BASE_URL not a URL", config.Agent{Provider: "openai", Model: "gpt-4.1"}, map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "ftp://x"}, []string{"OPENAI_BASE_URL"}},
		{"command is not an LLM provider", config.Agent{Provider: "command", Run: []string{"true"}}, full, []string{"command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := llm.New("agent-x", tt.cfg, llm.Options{Getenv: func(k string) string { return tt.env[k] }})
			if err == nil {
				t.Fatalf("New returned %v, want a bad_config error", a)
			}
			e := agentError(t, err)
			if diff := cmp.Diff(classified{Class: agent.Fatal, Reason: "bad_config"}, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
				t.Errorf("classification of %v (-want +got):\n%s", err, diff)
			}
			for _, m := range append([]string{"agent-x"}, tt.mention...) {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			for _, v := range full {
				noKey(t, err, v)
			}
		})
	}
}

func TestNewRequiresGetenv(t *testing.T) {
	t.Parallel()
	_, err := llm.New("a", config.Agent{Provider: "openai", Model: "m"}, llm.Options{})
	if e := agentError(t, err); e.Class != agent.Fatal {
		t.Errorf("class = %s, want fatal", e.Class)
	}
}

// TestConfigBeatsEnvironment checks the precedence: base-url over the
// provider's URL variable, api-key-env over the default key variable.
func TestConfigBeatsEnvironment(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			env := map[string]string{"MY_KEY": fake.Key}
			for k := range fake.Env() {
				// Point every default variable somewhere wrong.
				env[k] = "https://wrong.invalid/"
				if strings.HasSuffix(k, "_KEY") || k == "GITHUB_TOKEN" {
					env[k] = "wrong-key"
				}
			}
			cfg := p.cfg
			cfg.BaseURL, cfg.APIKeyEnv = fake.URL, "MY_KEY"
			a, err := newAgentEnv(t, fake, cfg, env)
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			if _, err := a.Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("the fake got %d requests, want 1", n)
			}
		})
	}
}

// TestProcessEnvironmentIgnored sets the variables the SDKs read by default
// to stray values; the agents must use only what Getenv says.
func TestProcessEnvironmentIgnored(t *testing.T) {
	stray := map[string]string{
		"OPENAI_API_KEY":           "sk-stray",
		"OPENAI_BASE_URL":          "http://127.0.0.1:1/stray",
		"OPENAI_ADMIN_KEY":         "sk-admin-stray",
		"OPENAI_ORG_ID":            "org-stray",
		"OPENAI_PROJECT_ID":        "proj-stray",
		"OPENAI_CUSTOM_HEADERS":    "X-Stray: 1",
		"ANTHROPIC_API_KEY":        "sk-ant-stray",
		"ANTHROPIC_AUTH_TOKEN":     "stray-token",
		"ANTHROPIC_BASE_URL":       "http://127.0.0.1:1/stray",
		"ANTHROPIC_CUSTOM_HEADERS": "X-Stray: 1",
		"AZURE_OPENAI_API_KEY":     "az-stray",
		"AZURE_OPENAI_ENDPOINT":    "https://stray.openai.azure.com",
		"GITHUB_TOKEN":             "ghs-stray",
		"COPILOT_GITHUB_TOKEN":     "ghs-stray",
		"OPTR_COPILOT_CLI":         "/nonexistent/stray-copilot",
	}
	for k, v := range stray {
		t.Setenv(k, v)
	}
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			fake := p.newFake(t)
			if _, err := newAgent(t, fake, p.cfg).Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the fake got %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(p.wantAuth(fake.Key), headers(reqs[0].Header, p.authHeaders)); diff != "" {
				t.Errorf("auth headers (-want +got):\n%s", diff)
			}
			for _, h := range []string{"X-Stray", "OpenAI-Organization", "OpenAI-Project"} {
				if v := reqs[0].Header.Get(h); v != "" {
					t.Errorf("request carries %s: %q from the process environment", h, v)
				}
			}
		})
	}
}

func TestAzureAPIVersion(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAzure(t)
	cfg := config.Agent{Provider: "azure-openai", Model: "gpt-4o-mini", APIVersion: "2025-04-01-preview"}
	if _, err := newAgent(t, fake, cfg).Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := fake.Requests()[0]
	got := []string{r.Path, r.Query.Get("api-version")}
	want := []string{"/azure/openai/deployments/gpt-4o-mini/chat/completions", "2025-04-01-preview"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestLogsNeverHoldTheKey(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const wrong = "sk-wrong-for-the-log-test"
	env := map[string]string{"OPENAI_API_KEY": wrong, "OPENAI_BASE_URL": fake.URL}
	a, err := llm.New("codex", config.Agent{Provider: "openai", Model: "gpt-4.1"},
		llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client(), Logger: log})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	if _, err := a.Run(t.Context(), agent.Request{Intent: "x"}); err == nil {
		t.Fatal("Run with a wrong key succeeded")
	}
	logged := buf.String()
	if !strings.Contains(logged, "llm request failed") || !strings.Contains(logged, "reason=unauthorized") {
		t.Errorf("log %q lacks the failed request", logged)
	}
	if strings.Contains(logged, wrong) {
		t.Errorf("log holds the key: %q", logged)
	}
}
