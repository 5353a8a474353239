package provider

import (
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegistry: every entry says what its users need of it.
func TestRegistry(t *testing.T) {
	t.Parallel()
	envName := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("provider %q: the name is empty or listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Title == "" || len(p.Keys) == 0 {
			t.Errorf("provider %s: no Title or no Keys", p.Name)
		}
		if p.Program {
			// A model is a preset's CLI's (its model flag), never the
			// provider's.
			if len(p.KeyEnv) > 0 || p.BaseURLEnv != "" || p.BYOK != "" || p.DefaultAgent != "" || (p.Uses("model") && !p.Uses("preset")) {
				t.Errorf("provider %s runs a program: it has no key, endpoint, BYOK, default agent, or model but a preset's", p.Name)
			}
			continue
		}
		// An LLM provider's agents have a model and may name a key
		// (KeyEnv may be empty: a local server needs none).
		if p.ExampleModel == "" || !p.Uses("model") || !p.Uses("api-key-env") {
			t.Errorf("provider %s: an LLM provider needs ExampleModel and the keys model and api-key-env", p.Name)
		}
		// api: chooses among the wire formats: only where there are two
		// (Gemini's has two, but optr's agents speak one of them).
		if p.Uses("api") && len(p.APIs) < 2 {
			t.Errorf("provider %s: its agents may write api: %v, but its API speaks %d wire formats", p.Name, p.Uses("api"), len(p.APIs))
		}
		for _, a := range p.APIs {
			if !slices.Contains(Wires(), a.Wire) {
				t.Errorf("provider %s: unknown wire format %q", p.Name, a.Wire)
			}
		}
		if len(p.APIs) > 0 && p.DefaultURL == "" && p.BaseURLEnv == "" {
			t.Errorf("provider %s: an API with no DefaultURL needs a BaseURLEnv", p.Name)
		}
		for _, v := range append(slices.Clone(p.KeyEnv), p.BaseURLEnv) {
			if v != "" && !envName.MatchString(v) {
				t.Errorf("provider %s: %q is not an environment variable name", p.Name, v)
			}
		}
		if p.BYOK != "" && p.ExampleURL == "" {
			t.Errorf("provider %s: a BYOK endpoint needs an ExampleURL for messages", p.Name)
		}
		if p.DefaultAgent != "" && !p.DefaultAlways && p.Setup == "" && len(p.KeyEnv) == 0 {
			t.Errorf("provider %s: a default agent that needs a key needs a KeyEnv", p.Name)
		}
	}
	if _, ok := Lookup(GitHubModels); ok {
		t.Errorf("%s is retired; it must not be a provider", GitHubModels)
	}
}

// TestDerived: the lists other packages read come from the table, in its
// order.
func TestDerived(t *testing.T) {
	t.Parallel()
	var names, llms, keys []string
	for _, p := range All() {
		names = append(names, p.Name)
		if !p.Program {
			llms = append(llms, p.Name)
		}
		for _, k := range p.KeyEnv {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if diff := cmp.Diff(names, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(llms, LLMNames()); diff != "" {
		t.Errorf("LLMNames (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(keys, KeyVars()); diff != "" {
		t.Errorf("KeyVars (-want +got):\n%s", diff)
	}
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"} {
		if !slices.Contains(KeyVars(), k) {
			t.Errorf("KeyVars lacks %s", k)
		}
	}
	var defaults []string
	for _, p := range Defaults() {
		defaults = append(defaults, p.DefaultAgent)
	}
	// architecture §4.8: copilot always, first; then codex and claude.
	if diff := cmp.Diff([]string{"copilot", "codex", "claude"}, defaults); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
	for _, key := range []string{"model", "run", "byok", "api-version"} {
		for _, p := range All() {
			if got := slices.Contains(Using(key), p.Name); got != p.Uses(key) {
				t.Errorf("Using(%q) holds %s: %v; %s uses it: %v", key, p.Name, got, p.Name, p.Uses(key))
			}
		}
	}
	for kind, want := range map[string]string{"openai": OpenAI, "azure": AzureOpenAI, "anthropic": Anthropic} {
		if p, ok := ForBYOK(kind); !ok || p.Name != want {
			t.Errorf("ForBYOK(%q) = %q, %v; want %q", kind, p.Name, ok, want)
		}
	}
	if _, ok := ForBYOK(""); ok {
		t.Error(`ForBYOK("") found a provider`)
	}
	if !IsLLM(Copilot) || IsLLM(Command) || IsLLM("bogus") {
		t.Error("IsLLM is wrong about copilot, command or an unknown name")
	}
}

// TestAllIsACopy: a caller cannot change the registry.
func TestAllIsACopy(t *testing.T) {
	t.Parallel()
	All()[0].Name = "changed"
	if Names()[0] == "changed" {
		t.Error("All returned the registry itself")
	}
}

// TestAPIHost: the host of the default URL, else of the endpoint variable.
func TestAPIHost(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com:8443/", "OPENAI_BASE_URL": "https://ignored.example"}
	getenv := func(k string) string { return env[k] }
	for name, want := range map[string]string{OpenAI: "api.openai.com", Anthropic: "api.anthropic.com", AzureOpenAI: "res.openai.azure.com:8443", Copilot: "", Command: ""} {
		p, _ := Lookup(name)
		if got := p.APIHost(getenv); got != want {
			t.Errorf("%s: APIHost = %q, want %q", name, got, want)
		}
	}
	if p, _ := Lookup(AzureOpenAI); p.APIHost(func(string) string { return "not a url" }) != "" {
		t.Error("APIHost of a malformed endpoint is not empty")
	}
}

// TestDoubled: a base URL that ends in what a client appends is found,
// and the URL to write instead is the rest; a right one is left alone.
func TestDoubled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, base, fixed string
	}{
		{Anthropic, "https://proxy.example/v1", "https://proxy.example"},
		{Anthropic, "https://proxy.example/v1/", "https://proxy.example"},
		{Anthropic, "https://proxy.example/anthropic/v1/messages", "https://proxy.example/anthropic"},
		{Anthropic, "https://proxy.example", ""},
		{Anthropic, "https://proxy.example/anthropic", ""},
		{OpenAI, "https://api.openai.com/v1", ""},
		{OpenAI, "http://localhost:11434/v1", ""},
		{OpenAI, "https://llm.example/v1/responses", "https://llm.example/v1"},
		{OpenAI, "https://llm.example/v1/chat/completions", "https://llm.example/v1"},
		{Gemini, "https://generativelanguage.googleapis.com", ""},
		{Gemini, "https://generativelanguage.googleapis.com/v1beta", "https://generativelanguage.googleapis.com"},
		{Gemini, "https://gw.example/g/v1beta/openai/", "https://gw.example/g"},
		{Gemini, "https://gw.example/v1beta/models/gemini-2.5-flash:generateContent", "https://gw.example"},
		{Copilot, "https://anything.example/v1", ""},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.provider)
		fixed, doubled := p.Doubled(tt.base)
		if fixed != tt.fixed || doubled != (tt.fixed != "") {
			t.Errorf("%s.Doubled(%q) = %q, %v; want %q", tt.provider, tt.base, fixed, doubled, tt.fixed)
		}
	}
}

// TestAPIs: the default wire format is the first; api: names another.
func TestAPIs(t *testing.T) {
	t.Parallel()
	p, _ := Lookup(OpenAI)
	if a, ok := p.API(""); !ok || a.Wire != Responses {
		t.Errorf("openai's default API = %v, %v; want responses", a, ok)
	}
	if a, ok := p.API("chat-completions"); !ok || a.Wire != ChatCompletions {
		t.Errorf("openai's chat-completions = %v, %v", a, ok)
	}
	if _, ok := p.API("messages"); ok {
		t.Error("openai speaks messages")
	}
	g, _ := Lookup(Gemini)
	a, _ := g.API("")
	if got := a.BaseURL("https://generativelanguage.googleapis.com/"); got != "https://generativelanguage.googleapis.com/v1beta/openai/" {
		t.Errorf("gemini's Chat Completions base URL = %q", got)
	}
	if diff := cmp.Diff([]string{"responses", "chat-completions"}, p.WireNames()); diff != "" {
		t.Errorf("WireNames (-want +got):\n%s", diff)
	}
}

// TestGateway: the gateway serves the providers whose APIs command agents
// call (Claude Code, Codex CLI, Gemini CLI), each under one name, and
// each with the key and base-URL variables it hands agents.
func TestGateway(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"openai", "anthropic", "azure", "gemini"}, GatewayNames()); diff != "" {
		t.Errorf("GatewayNames (-want +got):\n%s", diff)
	}
	for _, name := range GatewayNames() {
		p, ok := ForGateway(name)
		if !ok || !p.LLM() || len(p.KeyEnv) == 0 || p.BaseURLEnv == "" {
			t.Errorf("ForGateway(%q) = %+v, %v: it needs a key and a base-URL variable", name, p, ok)
		}
	}
	if _, ok := ForGateway(""); ok {
		t.Error(`ForGateway("") found a provider`)
	}
}
