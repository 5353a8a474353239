package llm

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
	"github.com/optr-dev/optr/internal/sandbox"
)

// Defaults for settings the config leaves empty.
const (
	// DefaultMaxTokens caps an answer when the config says nothing.
	DefaultMaxTokens = 4096
	// DefaultAttemptTimeout bounds one attempt when neither attempt-timeout
	// nor timeout is configured.
	DefaultAttemptTimeout = 5 * time.Minute
	// DefaultAzureAPIVersion is the Azure OpenAI data-plane API version used
	// when api-version is not configured (the latest GA release of the
	// inference API; it takes max_completion_tokens and json_schema).
	DefaultAzureAPIVersion = "2024-10-21"
	// DefaultAzureResponsesAPIVersion is the api-version of an
	// azure-openai agent with api: responses when none is configured:
	// Azure serves the Responses API only on its preview versions.
	DefaultAzureResponsesAPIVersion = "2025-04-01-preview"
	// DefaultRole opens the system prompt when the agent has no role.
	DefaultRole = "You are a careful, expert software engineer. You answer precisely and completely."
)

// Options are what the LLM agents need from their caller.
type Options struct {
	// Getenv looks up keys and endpoints (OPENAI_API_KEY, ANTHROPIC_BASE_URL,
	// …). It is required: the agents never read the process environment.
	Getenv func(string) string
	// HTTPClient sends the requests; nil means a plain *http.Client. Tests
	// pass the fake server's client.
	HTTPClient *http.Client
	// Logger receives one debug record per request; nil discards them.
	Logger *slog.Logger
	// Sandbox confines the Copilot CLI as it confines command agents; nil
	// gives it only the built environment.
	Sandbox *sandbox.Run
}

// newCaller is the constructor of one provider's caller: it checks cfg,
// reads the key and endpoint through getenv (by default from the
// provider's variables, p.KeyEnv and p.BaseURLEnv), sets b.secret and
// b.keyVar, and returns the caller that sends one request.
type newCaller func(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error)

// callers holds the constructors of the providers that need one of their
// own (copilot drives a CLI, azure-openai names deployments), by name.
// Every other LLM provider is built from its registry entry alone
// (newStandard); TestEveryLLMProviderHasACaller checks that each can be.
var callers = map[string]newCaller{}

// register adds the constructor of provider name. Its file calls it from
// its init: one map entry, no work at start-up.
func register(name string, c newCaller) { callers[name] = c }

// New returns the agent called name for an LLM provider of the registry
// (provider.LLMNames). It fails with a Fatal
// "bad_config" *agent.Error when the provider is not an LLM provider, the
// key's variable is empty, or an endpoint is missing or malformed.
func New(name string, cfg config.Agent, opts Options) (agent.Agent, error) {
	p, ok := provider.Lookup(cfg.Provider)
	if !ok || !p.LLM() {
		return nil, badConfig("agent %q: provider %q is not an LLM provider; use %s", name, cfg.Provider, orList(provider.LLMNames()))
	}
	return newAgent(name, p, cfg, opts)
}

// newAgent is New for the provider p.
func newAgent(name string, p provider.Provider, cfg config.Agent, opts Options) (agent.Agent, error) {
	if opts.Getenv == nil {
		return nil, badConfig("agent %q: llm.Options.Getenv is nil; pass the function that reads the environment", name)
	}
	b := base{
		name:      name,
		provider:  cfg.Provider,
		model:     cfg.Model,
		role:      cfg.Role,
		maxTokens: cfg.MaxTokens,
		timeout:   attemptTimeout(cfg),
		client:    opts.HTTPClient,
		log:       opts.Logger,
		sandbox:   opts.Sandbox,
	}
	if b.maxTokens <= 0 {
		b.maxTokens = DefaultMaxTokens
	}
	if b.role == "" {
		b.role = DefaultRole
	}
	if b.client == nil {
		b.client = &http.Client{}
	}
	b.client = keepOrigin(b.client)
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	newCall := callers[p.Name]
	if newCall == nil {
		newCall = newStandard
	}
	c, err := newCall(&b, p, cfg, opts.Getenv)
	if err != nil {
		return nil, err
	}
	return &llmAgent{base: b, call: c}, nil
}

// attemptTimeout is attempt-timeout, else timeout, else the default.
func attemptTimeout(cfg config.Agent) time.Duration {
	if d := cfg.AttemptTimeout.D(); d > 0 {
		return d
	}
	if d := cfg.Timeout.D(); d > 0 {
		return d
	}
	return DefaultAttemptTimeout
}

// badConfig is a Fatal "bad_config" error: the agent cannot work as
// configured and no retry will change that.
func badConfig(format string, args ...any) *agent.Error {
	return agent.Errorf(agent.Fatal, "bad_config", format, args...)
}

// orList formats names for a message: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// apiKey reads the agent's key from api-key-env, else from the first of
// vars that is set (a provider's KeyEnv). With neither — a provider that
// needs no key — the agent has none: key and variable are empty. optional
// lets a key from vars be missing too (an endpoint other than the
// provider's own, such as a local server, may need none); one that
// api-key-env names never may.
func apiKey(name string, cfg config.Agent, getenv func(string) string, vars []string, optional bool) (key, variable string, err error) {
	if cfg.APIKeyEnv != "" {
		vars, optional = []string{cfg.APIKeyEnv}, false
	}
	for _, v := range vars {
		if key = getenv(v); key != "" {
			return key, v, nil
		}
	}
	if len(vars) == 0 || optional {
		return "", "", nil
	}
	return "", vars[0], badConfig("agent %q (%s): no API key: the environment variable %s is empty; set it (for example from a repository secret) or name another variable with api-key-env", name, cfg.Provider, strings.Join(vars, ", else "))
}

// endpoint returns the agent's base-url, else the value of the provider's
// endpoint variable (p.BaseURLEnv), and where it came from, for messages.
func endpoint(p provider.Provider, cfg config.Agent, getenv func(string) string) (url, from string) {
	if cfg.BaseURL != "" {
		return cfg.BaseURL, "base-url"
	}
	if p.BaseURLEnv == "" {
		return "", ""
	}
	return getenv(p.BaseURLEnv), p.BaseURLEnv
}

// pick returns the first non-empty value.
func pick(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// requireModel fails when the agent has no model.
func requireModel(name string, cfg config.Agent) error {
	if cfg.Model == "" {
		return badConfig("agent %q (%s): no model; add model: <model id> to the agent's config", name, cfg.Provider)
	}
	return nil
}
