package llm

import (
	"context"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

func init() { register(provider.Anthropic, newAnthropic) }

// newAnthropic returns the caller for the Messages API. Anthropic has no
// JSON mode every model supports, so the format is asked for in the system
// prompt and the answer is read tolerantly.
func newAnthropic(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
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
	client := anthropic.NewClient(
		// Skip the SDK's credential chain (ANTHROPIC_API_KEY, _AUTH_TOKEN,
		// profiles, federation, ANTHROPIC_BASE_URL): the key and URL are ours.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL),
		option.WithAPIKey(key),
		option.WithHTTPClient(b.client),
		// One retry layer only: package recovery retries, the SDK does not.
		option.WithMaxRetries(0),
	)
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
	}, nil
}

// messageCompletion reads a Messages API message object.
func messageCompletion(res *anthropic.Message) completion {
	u := res.Usage
	c := completion{
		model: res.Model,
		stop:  string(res.StopReason),
		cut:   res.StopReason == anthropic.StopReasonMaxTokens,
		usage: agent.Usage{
			// input_tokens excludes cached prompt tokens; the prompt is all three.
			InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
			OutputTokens: u.OutputTokens,
		},
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
