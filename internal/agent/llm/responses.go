package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/optr-dev/optr/internal/agent"
)

// openAIOptions are the request options of an agent that speaks the
// Responses API to baseURL, with its key when it has one. The service is
// built from these options alone, never through the SDK's NewClient, which
// starts from DefaultClientOptions: those read OPENAI_BASE_URL,
// OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID and
// OPENAI_CUSTOM_HEADERS from the process environment, which would leak
// into requests (headers) or be the fallback for anything not set here.
func openAIOptions(b *base, baseURL string) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	}
	if b.secret != "" {
		opts = append(opts, option.WithAPIKey(b.secret))
	}
	return opts
}

// responsesCaller returns the caller that speaks the Responses API through
// opts (openAIOptions, or Azure's): the answer held to its JSON schema
// (answerText), nothing stored on the provider's side.
func responsesCaller(opts []option.RequestOption, model string, maxTokens int64) caller {
	svc := responses.NewResponseService(opts...)
	return func(ctx context.Context, p prompt, raw **http.Response) (completion, error) {
		var res responseWire
		_, err := svc.New(ctx, responses.ResponseNewParams{
			Model:           model,
			Instructions:    param.NewOpt(p.system),
			Input:           responses.ResponseNewParamsInputUnion{OfString: param.NewOpt(p.user)},
			MaxOutputTokens: param.NewOpt(maxTokens),
			// optr keeps its own record; nothing needs to stay on the provider's side.
			Store: param.NewOpt(false),
			Text:  answerText(),
		}, option.WithResponseInto(raw), option.WithResponseBodyInto(&res))
		if err != nil {
			return completion{}, err
		}
		c := res.completion()
		c.structured = true
		return c, nil
	}
}

// answerText is the text config of every Responses API request: the
// answer's JSON schema (answerSchema), strict. The SDK encodes it once,
// from its typed param, and each request carries that JSON
// (param.Override) instead of encoding the schema's maps again by
// reflection.
var answerText = sync.OnceValue(func() responses.ResponseTextConfigParam {
	text := responses.ResponseTextConfigParam{
		Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
				Name:   schemaName,
				Schema: answerSchema(),
				Strict: param.NewOpt(true),
			},
		},
	}
	b, err := json.Marshal(text)
	if err != nil {
		return text // each request encodes it, and fails with the SDK's error
	}
	return param.Override[responses.ResponseTextConfigParam](json.RawMessage(b))
})

// responseWire is what optr reads of a Responses API response object,
// decoded by encoding/json (option.WithResponseBodyInto). The SDK's
// responses.Response decodes every member of the API's large union types
// through its own reflection, 8 % of optr's CPU with 64 agents, for the
// eight members read here.
type responseWire struct {
	Model  string `json:"model"`
	Status string `json:"status"`
	// Usage is nil when the response has none: its use is unknown.
	Usage *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Output []struct {
		// Content is kept raw: only the items that hold content parts
		// (messages) have an array of them.
		Content json.RawMessage `json:"content"`
	} `json:"output"`
	IncompleteDetails struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// completion reads the response: the text and refusal of its output
// items' content parts, its model, status and usage.
func (res *responseWire) completion() completion {
	c := completion{model: res.Model, stop: res.Status, usage: agent.UnknownUsage}
	if res.Usage != nil {
		c.usage = agent.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}
	}
	for _, item := range res.Output {
		var parts []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		}
		if json.Unmarshal(item.Content, &parts) != nil {
			continue // no content, or not content parts
		}
		for _, part := range parts {
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
