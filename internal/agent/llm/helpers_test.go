package llm_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// provider describes one provider's fake and what its requests must look like.
type provider struct {
	name    string
	newFake func(testing.TB) *llmtest.Server
	cfg     config.Agent
	// path is the request path the fake must see.
	path string
	// authHeaders are the headers that carry credentials and versions.
	authHeaders []string
	// wantAuth returns the values those headers must have for key.
	wantAuth func(key string) map[string]string
	// maxTokensField names the body field that caps the answer, and
	// maxTokens its value for a config without max-tokens.
	maxTokensField string
	maxTokens      float64
	// structured is true when the request holds the model to the answer
	// schema (a json_schema response format).
	structured bool
	// keyVar is the variable the agent's key comes from; echoes is true
	// when the fake's 401 repeats the key it was given, as OpenAI and
	// Anthropic do.
	keyVar string
	echoes bool
}

func providers() []provider {
	return []provider{
		{
			name:           config.ProviderOpenAI,
			newFake:        llmtest.NewOpenAI,
			cfg:            config.Agent{Provider: config.ProviderOpenAI, Model: "gpt-4.1"},
			path:           "/openai/v1/responses",
			authHeaders:    []string{"Authorization", "Api-Key", "X-Api-Key"},
			wantAuth:       func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} },
			maxTokensField: "max_output_tokens",
			maxTokens:      4096,
			structured:     true,
			keyVar:         "OPENAI_API_KEY",
			echoes:         true,
		},
		{
			// The same provider against a server that speaks only Chat
			// Completions: another server than OpenAI's gets the
			// parameters every server takes, and no response format.
			name:           "openai-chat-completions",
			newFake:        llmtest.NewChatCompletions,
			cfg:            config.Agent{Provider: config.ProviderOpenAI, Model: "llama3.2", API: "chat-completions"},
			path:           "/compat/v1/chat/completions",
			authHeaders:    []string{"Authorization", "Api-Key", "X-Api-Key"},
			wantAuth:       func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} },
			maxTokensField: "max_tokens",
			maxTokens:      4096,
			keyVar:         "OPENAI_API_KEY",
		},
		{
			name:           config.ProviderAzureOpenAI,
			newFake:        llmtest.NewAzure,
			cfg:            config.Agent{Provider: config.ProviderAzureOpenAI, Model: "gpt-4o", Deployment: "gpt4o-prod"},
			path:           "/azure/openai/deployments/gpt4o-prod/chat/completions",
			authHeaders:    []string{"Authorization", "Api-Key", "X-Api-Key"},
			wantAuth:       func(key string) map[string]string { return map[string]string{"Api-Key": key} },
			maxTokensField: "max_completion_tokens",
			maxTokens:      4096,
			structured:     true,
			keyVar:         "AZURE_OPENAI_API_KEY",
		},
		{
			name:        config.ProviderAnthropic,
			newFake:     llmtest.NewAnthropic,
			cfg:         config.Agent{Provider: config.ProviderAnthropic, Model: "claude-sonnet-4-5"},
			path:        "/anthropic/v1/messages",
			authHeaders: []string{"Authorization", "Api-Key", "X-Api-Key", "Anthropic-Version"},
			wantAuth: func(key string) map[string]string {
				return map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01"}
			},
			maxTokensField: "max_tokens",
			maxTokens:      4096,
			keyVar:         "ANTHROPIC_API_KEY",
			echoes:         true,
		},
		{
			// Gemini's OpenAI-compatible Chat Completions, below the
			// Gemini API's base URL.
			name:           config.ProviderGemini,
			newFake:        llmtest.NewGemini,
			cfg:            config.Agent{Provider: config.ProviderGemini, Model: "gemini-2.5-flash"},
			path:           "/gemini/v1beta/openai/chat/completions",
			authHeaders:    []string{"Authorization", "Api-Key", "X-Api-Key", "X-Goog-Api-Key"},
			wantAuth:       func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} },
			maxTokensField: "max_tokens",
			maxTokens:      4096,
			keyVar:         "GEMINI_API_KEY",
		},
	}
}

// providerNamed returns the provider called name.
func providerNamed(t *testing.T, name string) provider {
	t.Helper()
	for _, p := range providers() {
		if p.name == name {
			return p
		}
	}
	t.Fatalf("no provider %q", name)
	return provider{}
}

// headers returns the values of names in h, leaving out absent ones.
func headers(h http.Header, names []string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v := h.Get(n); v != "" {
			out[http.CanonicalHeaderKey(n)] = v
		}
	}
	return out
}

// newAgent builds an agent of cfg's provider against fake.
func newAgent(t *testing.T, fake *llmtest.Server, cfg config.Agent) agent.Agent {
	t.Helper()
	a, err := llm.New("tester", cfg, llm.Options{Getenv: fake.Getenv, HTTPClient: fake.Client()})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return a
}

// agentError returns err as an *agent.Error, failing the test otherwise.
func agentError(t *testing.T, err error) *agent.Error {
	t.Helper()
	var e *agent.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *agent.Error", err, err)
	}
	return e
}

// noKey fails the test when the key appears in err's message.
func noKey(t *testing.T, err error, key string) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), key) {
		t.Errorf("error message holds the API key: %q", err.Error())
	}
}

// newAgentEnv builds an agent of cfg's provider that reads env and talks to
// fake through its client.
func newAgentEnv(t *testing.T, fake *llmtest.Server, cfg config.Agent, env map[string]string) (agent.Agent, error) {
	t.Helper()
	return llm.New("tester", cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
}

// ignoreFirstOutput leaves out when the answer arrived, which only the
// clock decides.
var ignoreFirstOutput = cmpopts.IgnoreFields(agent.Response{}, "FirstOutput")
