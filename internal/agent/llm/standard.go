package llm

import (
	"net/url"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// newStandard builds the agent of an LLM provider from its registry entry
// alone (package provider): its model, its key (KeyEnv, or api-key-env;
// none for a provider that needs no key, or an endpoint other than the
// provider's own when the variable is empty), its endpoint (base-url,
// BaseURLEnv, DefaultURL) and the wire format its requests use (the
// agent's api:, else the provider's first). An OpenAI-compatible provider
// needs nothing else.
func newStandard(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
	if p.NeedsModel {
		if err := requireModel(b.name, cfg); err != nil {
			return nil, err
		}
	}
	api, err := chooseAPI(b, p, cfg)
	if err != nil {
		return nil, err
	}
	u, err := baseURL(b.name, p, cfg, getenv)
	if err != nil {
		return nil, err
	}
	// The provider's own API needs its key; another server speaking its
	// format (a local Ollama) may not, and then gets none.
	key, keyVar, err := apiKey(b.name, cfg, getenv, p.KeyEnv, !sameHost(u, p.DefaultURL))
	if err != nil {
		return nil, err
	}
	b.secret, b.keyVar = key, keyVar
	wireURL := api.BaseURL(u.String())
	switch api.Wire {
	case provider.Responses:
		return responsesCaller(openAIOptions(b, wireURL), b.model, b.maxTokens), nil
	case provider.ChatCompletions:
		// The provider's own server gets its newest parameters; another
		// server speaking the format, the ones every server takes.
		strict := api.Strict && sameHost(u, p.DefaultURL)
		field := maxTokensField
		if strict {
			field = maxCompletionTokensField
		}
		return chatCaller(chatWire{client: b.client, url: chatURL(wireURL, ""), header: bearer(b.secret)}, b.model, b.maxTokens, field, strict), nil
	case provider.Messages:
		return messagesCaller(b, wireURL), nil
	}
	return nil, badConfig("agent %q (%s): optr's agents do not speak the %s wire format; set api: to one of %s", b.name, cfg.Provider, api.Wire, orList(spoken(p)))
}

// chooseAPI returns the wire format the agent's requests use: the one its
// api: names, else its provider's first; b.wire records it.
func chooseAPI(b *base, p provider.Provider, cfg config.Agent) (provider.API, error) {
	api, ok := p.API(cfg.API)
	if !ok {
		return provider.API{}, badConfig("agent %q (%s): api %q is not a wire format %s speaks; use %s", b.name, cfg.Provider, cfg.API, p.Title, orList(p.WireNames()))
	}
	b.wire = api.Wire
	return api, nil
}

// speaks reports whether optr's own agents speak wire format w.
func speaks(w provider.Wire) bool {
	switch w {
	case provider.Responses, provider.ChatCompletions, provider.Messages:
		return true
	}
	return false
}

// spoken lists the wire formats of p that optr's agents speak.
func spoken(p provider.Provider) []string {
	var out []string
	for _, a := range p.APIs {
		if speaks(a.Wire) {
			out = append(out, string(a.Wire))
		}
	}
	return out
}

// sameHost reports whether u is on the host of raw.
func sameHost(u *url.URL, raw string) bool {
	d, err := url.Parse(raw)
	return err == nil && d.Host != "" && u.Host == d.Host
}
