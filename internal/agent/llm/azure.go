package llm

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

func init() { register(provider.AzureOpenAI, newAzure) }

// newAzure returns the caller for Azure OpenAI, whose requests name a
// deployment: Chat Completions at
// <endpoint>/openai/deployments/<deployment>/chat/completions, or (api:
// responses) the Responses API at <endpoint>/openai/responses, both with
// ?api-version=… and the key in the api-key header.
//
// Not through openai-go's azure package, which adds Entra ID tokens optr
// does not offer, and with them the Azure SDK's core and a second HTTP/2
// stack to the binary: Chat Completions is optr's own request (chatWire),
// the Responses API openai-go's with the options below. The key never
// follows a redirect to another origin (keepOrigin), as that package
// guarantees too.
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
		// An Azure key goes over https only.
		return nil, badConfig("agent %q (%s): the endpoint %q is not https: Azure OpenAI endpoints must use https", b.name, cfg.Provider, u.Redacted())
	}
	version := DefaultAzureAPIVersion
	if api.Wire == provider.Responses {
		version = DefaultAzureResponsesAPIVersion
	}
	endpoint := strings.TrimSuffix(u.String(), "/") + "/openai/"
	version = pick(cfg.APIVersion, version)
	if api.Wire == provider.Responses {
		return responsesCaller([]option.RequestOption{
			option.WithBaseURL(endpoint),
			option.WithQuery("api-version", version),
			option.WithHeader("api-key", key),
			option.WithHTTPClient(b.client),
			// One retry layer only: package recovery retries, the SDK does not.
			option.WithMaxRetries(0),
		}, b.model, b.maxTokens), nil
	}
	w := chatWire{
		client: b.client,
		url:    chatURL(endpoint+"deployments/"+url.PathEscape(b.model), url.Values{"api-version": {version}}.Encode()),
		header: http.Header{"Api-Key": {key}},
	}
	return chatCaller(w, b.model, b.maxTokens, maxCompletionTokensField, true), nil
}
