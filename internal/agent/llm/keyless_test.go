package llm_test

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	registry "github.com/optr-dev/optr/internal/provider"
)

// local is a provider that needs no key, as a local Ollama: no KeyEnv.
var local = registry.Provider{
	Name: "local", Title: "a local server", NeedsModel: true,
	Keys: []string{"model", "base-url", "api-key-env"},
	APIs: []registry.API{{Wire: registry.ChatCompletions}},
}

// TestKeylessProvider: a provider without key variables is built from its
// entry alone and sends no credential; api-key-env still gives it one.
func TestKeylessProvider(t *testing.T) {
	t.Parallel()
	for _, keyed := range []bool{false, true} {
		fake := llmtest.NewChatCompletions(t)
		env := map[string]string{}
		cfg := config.Agent{Provider: local.Name, Model: "llama3.2", BaseURL: fake.URL}
		want := ""
		if keyed {
			env["LOCAL_KEY"], cfg.APIKeyEnv, want = fake.Key, "LOCAL_KEY", "Bearer "+fake.Key
		} else {
			fake.Key = ""
		}
		a, err := llm.NewForProviderForTest("ollama", local, cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
		if err != nil {
			t.Fatalf("keyed %v: %v", keyed, err)
		}
		res, err := a.Run(t.Context(), agent.Request{Intent: "x"})
		if err != nil || res.Output != "ok" {
			t.Fatalf("keyed %v: Run = %+v, %v", keyed, res, err)
		}
		if got := fake.Requests()[0].Header.Get("Authorization"); got != want {
			t.Errorf("keyed %v: Authorization %q, want %q", keyed, got, want)
		}
	}
}

// TestKeylessProviderRefuses: api-key-env that names an empty variable is
// still an error, and so is a provider with no endpoint at all.
func TestKeylessProviderRefuses(t *testing.T) {
	t.Parallel()
	getenv := func(string) string { return "" }
	for name, tt := range map[string]struct {
		cfg  config.Agent
		want string
	}{
		"api-key-env empty": {config.Agent{Provider: local.Name, Model: "m", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "UNSET"}, "UNSET"},
		"no endpoint":       {config.Agent{Provider: local.Name, Model: "m"}, "no endpoint"},
	} {
		_, err := llm.NewForProviderForTest("ollama", local, tt.cfg, llm.Options{Getenv: getenv})
		if e := agentError(t, err); e.Reason != "bad_config" || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want bad_config naming %q", name, err, tt.want)
		}
	}
}

// TestOwnAPINeedsItsKey: an openai agent sent to another server (a local
// Ollama) without OPENAI_API_KEY sends no key and works; sent to OpenAI's
// own API without it, it is refused before any request.
func TestOwnAPINeedsItsKey(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewChatCompletions(t)
	fake.Key = ""
	cfg := config.Agent{Provider: config.ProviderOpenAI, Model: "qwen2.5-coder", API: "chat-completions", BaseURL: fake.URL}
	a, err := llm.New("ollama", cfg, llm.Options{Getenv: func(string) string { return "" }, HTTPClient: fake.Client()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := a.Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if h := fake.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("a key was sent: %q", h)
	}
	cfg.BaseURL = "https://api.openai.com/v1"
	_, err = llm.New("codex", cfg, llm.Options{Getenv: func(string) string { return "" }})
	if e := agentError(t, err); e.Reason != "bad_config" || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("OpenAI's own API without a key: %v, want bad_config naming OPENAI_API_KEY", err)
	}
}
