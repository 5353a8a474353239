package llm

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

func init() { register(provider.AzureOpenAI, newAzure) }

// newAzure returns the caller for Azure OpenAI: Chat Completions at
// <endpoint>/openai/deployments/<deployment>/chat/completions?api-version=…
// with the key in the api-key header, both produced by the SDK's azure
// package. azure.WithEndpoint also keeps ambient OPENAI_* settings out.
func newAzure(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
	b.model = pick(cfg.Deployment, cfg.Model)
	if b.model == "" {
		return nil, badConfig("agent %q (%s): no deployment; add deployment: <name> (or model: <name>) to the agent's config", b.name, cfg.Provider)
	}
	key, keyVar, err := apiKey(b.name, cfg, getenv, p.KeyEnv[0])
	if err != nil {
		return nil, err
	}
	b.secret, b.keyVar = key, keyVar
	url, from := endpoint(p, cfg, getenv)
	if url == "" {
		return nil, badConfig("agent %q (%s): no endpoint; set %s or base-url to https://<resource>.openai.azure.com", b.name, cfg.Provider, p.BaseURLEnv)
	}
	u, err := checkEndpoint(b.name, cfg.Provider, url, from)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" {
		// The SDK sends Azure keys over https only.
		return nil, badConfig("agent %q (%s): %s is %q: Azure OpenAI endpoints must use https", b.name, cfg.Provider, from, url)
	}
	opts := []option.RequestOption{
		azure.WithEndpoint(url, pick(cfg.APIVersion, DefaultAzureAPIVersion)),
		azure.WithAPIKey(key),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	}
	return chatCaller(openai.NewChatCompletionService(opts...), b.model, b.maxTokens, maxCompletionTokensField, true), nil
}
