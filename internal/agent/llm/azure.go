package llm

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

func init() { register(provider.AzureOpenAI, newAzure) }

// newAzure returns the caller for Azure OpenAI, whose requests name a
// deployment: Chat Completions at
// <endpoint>/openai/deployments/<deployment>/chat/completions, or (api:
// responses) the Responses API at <endpoint>/openai/responses, both with
// ?api-version=… and the key in the api-key header, as the SDK's azure
// package writes them. azure.WithEndpoint also keeps ambient OPENAI_*
// settings out.
func newAzure(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
	b.model = pick(cfg.Deployment, cfg.Model)
	if b.model == "" {
		return nil, badConfig("agent %q (%s): no deployment; add deployment: <name> (or model: <name>) to the agent's config", b.name, cfg.Provider)
	}
	api, err := chooseAPI(b, p, cfg)
	if err != nil {
		return nil, err
	}
	key, keyVar, err := apiKey(b.name, cfg, getenv, p.KeyEnv, false)
	if err != nil {
		return nil, err
	}
	b.secret, b.keyVar = key, keyVar
	u, err := baseURL(b.name, p, cfg, getenv)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" {
		// The SDK sends Azure keys over https only.
		return nil, badConfig("agent %q (%s): the endpoint %q is not https: Azure OpenAI endpoints must use https", b.name, cfg.Provider, u.Redacted())
	}
	version := DefaultAzureAPIVersion
	if api.Wire == provider.Responses {
		version = DefaultAzureResponsesAPIVersion
	}
	opts := []option.RequestOption{
		azure.WithEndpoint(u.String(), pick(cfg.APIVersion, version)),
		azure.WithAPIKey(key),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	}
	if api.Wire == provider.Responses {
		return responsesCaller(opts, b.model, b.maxTokens), nil
	}
	return chatCaller(openai.NewChatCompletionService(opts...), b.model, b.maxTokens, maxCompletionTokensField, true), nil
}
