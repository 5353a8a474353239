package llmtest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewAnthropic starts a fake Anthropic API serving the Messages API at
// <URL>/v1/messages (URL ends in /anthropic). It checks x-api-key and
// requires anthropic-version, as the real API does.
func NewAnthropic(t testing.TB) *Server {
	t.Helper()
	return newServer(t, anthropicDialect{}, false)
}

type anthropicDialect struct{}

func (anthropicDialect) name() string            { return "anthropic" }
func (anthropicDialect) basePath() string        { return "/anthropic" }
func (anthropicDialect) env() (string, string)   { return "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL" }
func (anthropicDialect) requestIDHeader() string { return "request-id" }

func (anthropicDialect) prompt(b map[string]any) (string, string) {
	system := contentText(b["system"])
	_, user := messages(b["messages"])
	return system, user
}

func (anthropicDialect) route(r *http.Request, path string) (string, bool) {
	return "", r.Method == http.MethodPost && path == "/v1/messages"
}

func (anthropicDialect) admit(h http.Header, key string) (int, string) {
	switch {
	case h.Get("x-api-key") != key:
		return http.StatusUnauthorized, fmt.Sprintf("invalid x-api-key: %s", given(h, "x-api-key"))
	case h.Get("anthropic-version") == "":
		return http.StatusBadRequest, "anthropic-version: header is required"
	}
	return 0, ""
}

func (anthropicDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	stop := "end_turn"
	switch {
	case rep.Refusal != "":
		stop = "refusal"
	case rep.Cut:
		stop = "max_tokens"
	}
	content := []any{}
	if text := pick(rep.Refusal, rep.Text); text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	return map[string]any{
		"id":            fmt.Sprintf("msg_%06d", id),
		"type":          "message",
		"role":          "assistant",
		"model":         modelOf(in, rep),
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                u.InputTokens,
			"cache_creation_input_tokens": 0,
			"cache_read_input_tokens":     0,
			"output_tokens":               u.OutputTokens,
			"service_tier":                "standard",
		},
	}
}

// failure is Anthropic's error envelope:
// {"type": "error", "error": {"type", "message"}, "request_id"}.
func (anthropicDialect) failure(in Request, status int, code, msg string) any {
	typ, defMsg := "invalid_request_error", http.StatusText(status)
	switch status {
	case http.StatusUnauthorized:
		typ, defMsg = "authentication_error", "invalid x-api-key"
	case http.StatusForbidden:
		typ, defMsg = "permission_error", "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		typ, defMsg = "not_found_error", fmt.Sprintf("model: %s", in.Model)
	case http.StatusRequestEntityTooLarge:
		typ, defMsg = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case http.StatusTooManyRequests:
		typ, defMsg = "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."
	case http.StatusInternalServerError:
		typ, defMsg = "api_error", "Internal server error"
	case 529:
		typ, defMsg = "overloaded_error", "Overloaded"
	}
	return map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": pick(code, typ), "message": pick(msg, defMsg)},
		"request_id": "req_llmtest",
	}
}
