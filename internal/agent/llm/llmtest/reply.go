package llmtest

import (
	"net/http"
	"net/url"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// Reply is one scripted answer of a fake server.
type Reply struct {
	// Text is the model's answer text; for an error Status, the error
	// message (empty: the provider's usual message for that status).
	Text string
	// Status is the HTTP status; 0 means 200.
	Status int
	// Code is the provider's error code (OpenAI, Azure) or
	// error type (Anthropic) for an error Status; empty means the provider's
	// usual one for that status. "insufficient_quota" and "content_filter"
	// are the interesting ones.
	Code string
	// Headers are set on the response: Retry-After, x-ratelimit-*, ….
	Headers map[string]string
	// Delay is how long the server waits before answering; it gives up
	// when the request's context ends.
	Delay time.Duration
	// Hang makes the server never answer: it waits until the request's
	// context ends (or the test ends).
	Hang bool
	// Truncate sends only the first half of the body.
	Truncate bool
	// Reset closes the connection without answering.
	Reset bool
	// Usage is the token use reported; zero means an estimate of bytes/4
	// of the prompt and of Text.
	Usage agent.Usage
	// Model is the model reported; empty means the model requested.
	Model string
	// Cut reports that the answer stopped at the output token limit
	// (finish_reason "length", status "incomplete", stop_reason "max_tokens").
	Cut bool
	// Refusal makes the model decline with this text.
	Refusal string
	// Body, when set, is sent verbatim instead of the provider's JSON.
	Body string
	// ToolCalls, when set, make the answer a request to call these tools
	// (Chat Completions: message.tool_calls, finish_reason "tool_calls"),
	// as a model driving a coding agent answers; Text is then ignored.
	ToolCalls []ToolCall
	// NoUsage leaves the usage out of the answer (streamed or not), as
	// some providers' compatible endpoints and proxies do.
	NoUsage bool
	// CutStream stops a streamed answer in the middle of an event, after
	// about half of them, and drops the connection.
	CutStream bool
	// Served, when not nil, is closed as soon as the server takes this
	// reply for a request: a test waits on it to act while the request is
	// in flight (cancel a hanging call, say) instead of guessing with a
	// timer.
	Served chan struct{}
}

// ToolCall is one function call a scripted answer asks for.
type ToolCall struct {
	// Name is the tool's name, one the request offered.
	Name string
	// Args are the call's arguments, sent JSON-encoded.
	Args map[string]any
}

// Request is what a fake server received.
type Request struct {
	// Method is the HTTP method.
	Method string
	// Path is the URL path as received, base path included.
	Path string
	// Query is the URL query (Azure's api-version).
	Query url.Values
	// Header holds every request header (Authorization, x-api-key,
	// anthropic-version, Api-Key, …).
	Header http.Header
	// Model is the body's "model".
	Model string
	// Deployment is the deployment named in an Azure path.
	Deployment string
	// System and User are the prompt as sent: the system prompt (or
	// instructions) and the user message.
	System string
	User   string
	// Body is the decoded JSON body (numbers as float64); nil when it was
	// not JSON.
	Body map[string]any
	// Stream is true when the request asked for a streamed answer
	// ("stream": true, Gemini's streamGenerateContent).
	Stream bool
	// Received is when the server had read the whole request: a reply's
	// Delay runs from then.
	Received time.Time
}

// Tools returns the names of the function tools the request offered.
func (r Request) Tools() []string {
	var names []string
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			if n, _ := fn["name"].(string); n != "" {
				names = append(names, n)
			}
		} else if n, _ := m["name"].(string); n != "" {
			names = append(names, n)
		}
	}
	return names
}
