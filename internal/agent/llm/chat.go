package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/bounded"
	"github.com/optr-dev/optr/internal/version"
)

// tokenParam says which field caps the answer: max_tokens (older and
// OpenAI-compatible servers) or max_completion_tokens (required by
// reasoning models on OpenAI and Azure).
type tokenParam int

const (
	maxTokensField tokenParam = iota
	maxCompletionTokensField
)

// maxAnswerBody bounds the chat.completion object read from a server: an
// answer of the largest output limits is a few megabytes of JSON.
const maxAnswerBody = 32 << 20

// chatWire is where an agent sends its Chat Completions requests, and with
// which headers: the key's (Authorization: Bearer, or Azure's api-key),
// when there is one.
//
// optr writes this request itself rather than through openai-go: the
// Chat Completions service lives in the SDK's root package, whose
// initialisation registers every type of the whole API (fine-tuning,
// vector stores, realtime, …), so the linker keeps them all: 14.8 MB of
// the binary, for a request of five members and an answer of six
// (architecture §7). The Responses API keeps the SDK: its package stands
// alone.
type chatWire struct {
	client *http.Client
	// url is the chat/completions URL, with its query (Azure's api-version).
	url    string
	header http.Header
}

// chatURL is the chat/completions URL under base, with query (raw, may be
// empty) appended.
func chatURL(base, query string) string {
	u := strings.TrimSuffix(base, "/") + "/chat/completions"
	if query != "" {
		u += "?" + query
	}
	return u
}

// bearer is the header that carries key as a bearer token; none when key
// is empty (a keyless server).
func bearer(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// chatRequest is the body of a Chat Completions request: the members optr
// sends.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           int64           `json:"max_tokens,omitzero"`
	MaxCompletionTokens int64           `json:"max_completion_tokens,omitzero"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
}

// chatMessage is one message of a request.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatAnswer is what optr reads of a chat.completion object.
type chatAnswer struct {
	Model string `json:"model"`
	// Usage is nil when the answer has none (or null): its use is unknown.
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Choices []struct {
		Message struct {
			Content chatContent `json:"content"`
			Refusal string      `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// chatContent is a message's content: a string (OpenAI, most servers), or
// an array of parts whose text parts make the answer (Mistral's reasoning
// models, which put their thinking in parts of another type); null is
// empty.
type chatContent string

// UnmarshalJSON implements json.Unmarshaler.
func (c *chatContent) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != nil {
			*c = chatContent(*s)
		}
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var text strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			text.WriteString(p.Text)
		}
	}
	*c = chatContent(text.String())
	return nil
}

// answerFormat is the response_format of a request held to the answer's
// JSON schema (answerSchema), strict; encoded once.
var answerFormat = sync.OnceValues(func() (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"type": "json_schema",
		"json_schema": map[string]any{
			"name":   schemaName,
			"schema": answerSchema(),
			"strict": true,
		},
	})
})

// chatCaller returns a caller that sends one Chat Completions request
// through w, asking for the answer schema as a json_schema response format
// when schema is true (otherwise the prompt alone asks for it).
func chatCaller(w chatWire, model string, maxTokens int64, field tokenParam, schema bool) caller {
	return func(ctx context.Context, p prompt, raw **http.Response) (completion, error) {
		body := chatRequest{
			Model:    model,
			Messages: []chatMessage{{Role: "system", Content: p.system}, {Role: "user", Content: p.user}},
		}
		if schema {
			f, err := answerFormat()
			if err != nil {
				return completion{}, err
			}
			body.ResponseFormat = f
		}
		if field == maxCompletionTokensField {
			body.MaxCompletionTokens = maxTokens
		} else {
			body.MaxTokens = maxTokens
		}
		var res chatAnswer
		if err := w.post(ctx, body, raw, &res); err != nil {
			return completion{}, err
		}
		c := res.completion()
		c.structured = schema
		return c, nil
	}
}

// post sends body and decodes the answer into out. raw receives the HTTP
// response whenever there is one; an error answer's body is kept in it,
// read and closed, for newAPIError, as the SDKs keep theirs.
func (w chatWire) post(ctx context.Context, body chatRequest, raw **http.Response, out *chatAnswer) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header = w.header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "optr/"+version.String())
	res, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	*raw = res
	if res.StatusCode >= http.StatusBadRequest {
		// As much as newAPIError reads of it; the status is the answer
		// whatever the rest holds.
		data, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body = io.NopCloser(bytes.NewReader(data))
		return fmt.Errorf("POST %s: HTTP %d", req.URL.Redacted(), res.StatusCode)
	}
	data, err := bounded.ReadAll(res.Body, maxAnswerBody)
	if err != nil {
		return fmt.Errorf("read the answer: %w", err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the chat.completion object: %w", err)
	}
	return nil
}

// completion reads the answer's first choice.
func (res *chatAnswer) completion() completion {
	c := completion{model: res.Model, usage: agent.UnknownUsage}
	if res.Usage != nil {
		c.usage = agent.Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens}
	}
	if len(res.Choices) > 0 {
		choice := res.Choices[0]
		c.text = string(choice.Message.Content)
		c.refusal = choice.Message.Refusal
		c.stop = choice.FinishReason
		c.cut = choice.FinishReason == "length"
	}
	return c
}
