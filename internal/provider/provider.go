package provider

import (
	"net/url"
	"slices"
)

// Provider is what optr knows of one provider, besides how to build its
// agents.
type Provider struct {
	// Name is the value of an agent's provider: key.
	Name string
	// Title names the service in prose, such as OpenAI.
	Title string
	// About says, in a phrase, what the provider is when its name does
	// not: the schema's description of provider: puts it after the name
	// ("" for none).
	About string
	// Program is true for a provider whose agents run a program (command)
	// rather than ask a model through its API (an LLM provider).
	Program bool
	// KeyEnv lists the environment variables an agent's key comes from
	// when api-key-env names none, in the order they are tried. Their
	// values are secrets: redact.Names lists them. Empty for a provider
	// that needs no key (a local server): then an agent has a key only
	// when its api-key-env names one.
	KeyEnv []string
	// BaseURLEnv is the variable that sets the endpoint when base-url does
	// not ("" when none does). It is also the variable the provider's own
	// SDKs and CLIs read (Claude Code ANTHROPIC_BASE_URL, Codex
	// OPENAI_BASE_URL, Gemini CLI GOOGLE_GEMINI_BASE_URL), with the same
	// convention as DefaultURL: the model gateway points it at itself.
	BaseURLEnv string
	// DefaultURL is the API's base URL when neither base-url nor
	// BaseURLEnv sets one ("" when there is none: an azure-openai
	// endpoint is the user's own resource), written as the provider's
	// clients expect it: with the version for OpenAI's
	// (https://api.openai.com/v1/), without for Anthropic's and Gemini's,
	// whose clients add it (Wire.Path). Its host is in the sandbox's
	// network defaults.
	DefaultURL string
	// APIs are the wire formats the provider's API speaks, and where
	// below its base URL: the model gateway serves each of them. optr's
	// own agents use the first, or the one an agent's api: key names
	// when the provider's agents may write api (Keys).
	APIs []API
	// ExampleModel is a model id for messages; it is also the model of the
	// provider's agent in the embedded default config.
	ExampleModel string
	// ExampleURL is an endpoint for messages.
	ExampleURL string
	// NeedsModel is true when an agent must name a model.
	NeedsModel bool
	// Keys are the agent keys this provider's agents may write besides
	// provider, timeout and attempt-timeout (config rejects the others).
	// Some are allowed only in some cases, which config checks with the
	// provider's own rule (validate_agent.go).
	Keys []string
	// BYOK is the value of a copilot agent's byok: key that sends it to
	// this provider's API with this provider's key ("" when Copilot
	// cannot).
	BYOK string
	// Gateway is the value of a command agent's gateway: list that gives
	// it this provider's API through optr's model gateway (architecture
	// §4.18): a placeholder key in KeyEnv, the gateway's address in
	// BaseURLEnv. "" when the gateway does not serve it.
	Gateway string
	// DefaultAgent names this provider's agent in the embedded default
	// config: it is there when the first KeyEnv variable is set, or
	// always when DefaultAlways is true. Empty means there is none.
	DefaultAgent  string
	DefaultAlways bool
	// Setup tells a maintainer, in Markdown, what to add so that this
	// provider's default agent can run in GitHub Actions; it follows the
	// provider's Title in the comment for a run where no agent is usable
	// (agent.UnusableComment). Empty means: the first KeyEnv variable, as
	// a repository secret passed to the step.
	Setup string
}

// API returns the wire format of p's API called name (an api: value), or
// p's first when name is empty.
func (p Provider) API(name string) (API, bool) {
	for _, a := range p.APIs {
		if name == "" || string(a.Wire) == name {
			return a, true
		}
	}
	return API{}, false
}

// WireNames returns the names of the wire formats p's API speaks, in
// order: the values an agent's api: key may take.
func (p Provider) WireNames() []string {
	out := make([]string, len(p.APIs))
	for i, a := range p.APIs {
		out[i] = string(a.Wire)
	}
	return out
}

// LLM reports whether the provider's agents ask a model (every provider
// but command).
func (p Provider) LLM() bool { return !p.Program }

// Uses reports whether the provider's agents may write key.
func (p Provider) Uses(key string) bool { return slices.Contains(p.Keys, key) }

// APIHost returns the host (with its port, if any) of p's API: its
// DefaultURL's, else the host of the URL its BaseURLEnv variable holds,
// read with getenv; "" when neither names one.
func (p Provider) APIHost(getenv func(string) string) string {
	raw := p.DefaultURL
	if raw == "" && p.BaseURLEnv != "" {
		raw = getenv(p.BaseURLEnv)
	}
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		return u.Host
	}
	return ""
}

// All returns every provider, in the order messages and the schema list
// them.
func All() []Provider { return slices.Clone(providers) }

// Lookup returns the provider called name.
func Lookup(name string) (Provider, bool) {
	return find(func(p Provider) bool { return p.Name == name })
}

// Defaults returns the providers that have an agent in the embedded
// default config, in that config's order: first those whose agent is
// always there, then those whose agent needs its key, in registry order.
func Defaults() []Provider {
	var always, keyed []Provider
	for _, p := range providers {
		switch {
		case p.DefaultAgent == "":
		case p.DefaultAlways:
			always = append(always, p)
		default:
			keyed = append(keyed, p)
		}
	}
	return append(always, keyed...)
}

// ForBYOK returns the provider whose API a copilot agent with byok: kind
// uses.
func ForBYOK(kind string) (Provider, bool) {
	return find(func(p Provider) bool { return p.BYOK != "" && p.BYOK == kind })
}

// BYOKKinds returns the values a copilot agent's byok: key may take, in
// table order.
func BYOKKinds() []string {
	var out []string
	for _, p := range providers {
		if p.BYOK != "" {
			out = append(out, p.BYOK)
		}
	}
	return out
}

// GatewayNames returns the values a command agent's gateway: list may
// hold, in table order.
func GatewayNames() []string {
	var out []string
	for _, p := range providers {
		if p.Gateway != "" {
			out = append(out, p.Gateway)
		}
	}
	return out
}

// ForGateway returns the provider a gateway: value names.
func ForGateway(name string) (Provider, bool) {
	return find(func(p Provider) bool { return p.Gateway != "" && p.Gateway == name })
}

// find returns the first provider that matches.
func find(match func(Provider) bool) (Provider, bool) {
	if i := slices.IndexFunc(providers, match); i >= 0 {
		return providers[i], true
	}
	return Provider{}, false
}

// Names returns the providers' names, in table order.
func Names() []string { return names(func(Provider) bool { return true }) }

// LLMNames returns the names of the LLM providers, in table order.
func LLMNames() []string { return names(Provider.LLM) }

// IsLLM reports whether name is an LLM provider.
func IsLLM(name string) bool {
	p, ok := Lookup(name)
	return ok && p.LLM()
}

// Using returns the names of the providers whose agents may write key.
func Using(key string) []string {
	return names(func(p Provider) bool { return p.Uses(key) })
}

// KeyVars returns every provider's key variables, each once, in table
// order.
func KeyVars() []string {
	var out []string
	for _, p := range providers {
		for _, k := range p.KeyEnv {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

func names(keep func(Provider) bool) []string {
	var out []string
	for _, p := range providers {
		if keep(p) {
			out = append(out, p.Name)
		}
	}
	return out
}
