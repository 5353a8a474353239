package llm

import (
	"context"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// openAIOptions are the openai agent's request options. Services are built from these options alone, never
// through openai.NewClient: NewClient starts from DefaultClientOptions, which
// reads OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID and
// OPENAI_CUSTOM_HEADERS from the process environment, and those would leak
// into requests (headers) or be the fallback for anything not set here.
func openAIOptions(b *base, baseURL string) []option.RequestOption {
	return []option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithAPIKey(b.secret),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	}
}

func init() { register(provider.OpenAI, newOpenAI) }

// newOpenAI returns the caller for the openai provider: the Responses API
// with a JSON-schema structured output.
func newOpenAI(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
	if err := requireModel(b.name, cfg); err != nil {
		return nil, err
	}
	key, keyVar, err := apiKey(b.name, cfg, getenv, p.KeyEnv[0])
	if err != nil {
		return nil, err
	}
	b.secret, b.keyVar = key, keyVar
	baseURL, from := endpoint(p, cfg, getenv)
	if baseURL == "" {
		baseURL = p.DefaultURL
	}
	if _, err := checkEndpoint(b.name, cfg.Provider, baseURL, from); err != nil {
		return nil, err
	}
	svc := responses.NewResponseService(openAIOptions(b, baseURL)...)
	model, maxTokens := b.model, b.maxTokens

	return func(ctx context.Context, p prompt, raw **http.Response) (completion, error) {
		res, err := svc.New(ctx, responses.ResponseNewParams{
			Model:           model,
			Instructions:    openai.String(p.system),
			Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String(p.user)},
			MaxOutputTokens: openai.Int(maxTokens),
			// optr keeps its own record; nothing needs to stay on OpenAI's side.
			Store: openai.Bool(false),
			Text: responses.ResponseTextConfigParam{
				Format: responses.ResponseFormatTextConfigUnionParam{
					OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
						Name:   schemaName,
						Schema: answerSchema(),
						Strict: openai.Bool(true),
					},
				},
			},
		}, option.WithResponseInto(raw))
		if err != nil {
			return completion{}, err
		}
		c := responseCompletion(res)
		c.structured = true
		return c, nil
	}, nil
}

// responseCompletion reads a Responses API response object.
func responseCompletion(res *responses.Response) completion {
	c := completion{
		model: res.Model,
		stop:  string(res.Status),
		usage: agent.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens},
	}
	for _, item := range res.Output {
		for _, part := range item.Content {
			switch part.Type {
			case "output_text":
				c.text += part.Text
			case "refusal":
				c.refusal += part.Refusal
			}
		}
	}
	if res.IncompleteDetails.Reason != "" {
		c.stop = res.IncompleteDetails.Reason
		c.cut = res.IncompleteDetails.Reason == "max_output_tokens"
	}
	return c
}
