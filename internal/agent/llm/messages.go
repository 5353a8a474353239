package llm

import (
	"context"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/optr-dev/optr/internal/agent"
)

// messagesCaller returns the caller that speaks Anthropic's Messages API
// to baseURL. Anthropic has no JSON mode every model supports, so the
// format is asked for in the system prompt and the answer is read
// tolerantly.
func messagesCaller(b *base, baseURL string) caller {
	opts := []option.RequestOption{
		// Skip the SDK's credential chain (ANTHROPIC_API_KEY, _AUTH_TOKEN,
		// profiles, federation, ANTHROPIC_BASE_URL): the key and URL are ours.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	}
	if b.secret != "" {
		opts = append(opts, option.WithAPIKey(b.secret))
	}
	client := anthropic.NewClient(opts...)
	model, maxTokens, timeout := b.model, b.maxTokens, b.timeout

	return func(ctx context.Context, p prompt, raw **http.Response) (completion, error) {
		res, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model:     model,
			MaxTokens: maxTokens,
			System:    []anthropic.TextBlockParam{{Text: p.system}},
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(p.user))},
		},
			option.WithResponseInto(raw),
			// An explicit timeout replaces the SDK's guess from max_tokens,
			// which refuses large answers without streaming; the attempt's
			// context still decides.
			option.WithRequestTimeout(timeout),
		)
		if err != nil {
			return completion{}, err
		}
		return messageCompletion(res), nil
	}
}

// messageCompletion reads a Messages API message object.
func messageCompletion(res *anthropic.Message) completion {
	u := res.Usage
	c := completion{
		model: res.Model,
		stop:  string(res.StopReason),
		cut:   res.StopReason == anthropic.StopReasonMaxTokens,
		usage: agent.UnknownUsage,
	}
	if res.JSON.Usage.Valid() {
		c.usage = agent.Usage{
			// input_tokens excludes cached prompt tokens; the prompt is all three.
			InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
			OutputTokens: u.OutputTokens,
		}
	}
	for _, block := range res.Content {
		if block.Type == "text" {
			c.text += block.Text
		}
	}
	if res.StopReason == anthropic.StopReasonRefusal {
		c.refusal = c.text
		if c.refusal == "" {
			c.refusal = "the model stopped with stop_reason refusal"
		}
	}
	return c
}
