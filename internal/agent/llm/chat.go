package llm

import (
	"context"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/optr-dev/optr/internal/agent"
)

// tokenParam says which field caps the answer: max_tokens (older and
// OpenAI-compatible servers) or max_completion_tokens (required by
// reasoning models on OpenAI and Azure).
type tokenParam int

const (
	maxTokensField tokenParam = iota
	maxCompletionTokensField
)

// chatCaller returns a caller that sends one Chat Completions request
// through svc, asking for the answer schema as a json_schema response format
// when schema is true (otherwise the prompt alone asks for it).
func chatCaller(svc openai.ChatCompletionService, model string, maxTokens int64, field tokenParam, schema bool) caller {
	return func(ctx context.Context, p prompt, raw **http.Response) (completion, error) {
		params := openai.ChatCompletionNewParams{
			Model: model,
			Messages: []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage(p.system),
				openai.UserMessage(p.user),
			},
		}
		if schema {
			params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
				OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
					JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
						Name:   schemaName,
						Schema: answerSchema(),
						Strict: openai.Bool(true),
					},
				},
			}
		}
		if field == maxCompletionTokensField {
			params.MaxCompletionTokens = openai.Int(maxTokens)
		} else {
			params.MaxTokens = openai.Int(maxTokens)
		}
		res, err := svc.New(ctx, params, option.WithResponseInto(raw))
		if err != nil {
			return completion{}, err
		}
		c := chatCompletion(res)
		c.structured = schema
		return c, nil
	}
}

// chatCompletion reads a chat.completion object's first choice.
func chatCompletion(res *openai.ChatCompletion) completion {
	c := completion{model: res.Model, usage: agent.UnknownUsage}
	if res.JSON.Usage.Valid() {
		c.usage = agent.Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens}
	}
	if len(res.Choices) > 0 {
		choice := res.Choices[0]
		c.text = choice.Message.Content
		c.refusal = choice.Message.Refusal
		c.stop = choice.FinishReason
		c.cut = choice.FinishReason == "length"
	}
	return c
}
