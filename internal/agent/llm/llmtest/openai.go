package llmtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewOpenAI starts a fake OpenAI API serving the Responses API at
// <URL>/responses and Chat Completions at <URL>/chat/completions (what the
// Copilot CLI speaks to a BYOK openai endpoint); URL ends in /openai/v1,
// with Bearer auth.
func NewOpenAI(t testing.TB) *Server {
	t.Helper()
	return newServer(t, openAIDialect{}, false)
}

type openAIDialect struct{}

func (openAIDialect) name() string            { return "openai" }
func (openAIDialect) basePath() string        { return "/openai/v1" }
func (openAIDialect) env() (string, string)   { return "OPENAI_API_KEY", "OPENAI_BASE_URL" }
func (openAIDialect) requestIDHeader() string { return "x-request-id" }
func (openAIDialect) prompt(b map[string]any) (string, string) {
	if _, chat := b["messages"]; chat {
		return messages(b["messages"])
	}
	system := str(b, "instructions")
	if s, ok := b["input"].(string); ok {
		return system, s
	}
	s, u := messages(b["input"])
	return system + s, u
}

func (openAIDialect) route(r *http.Request, path string) (string, bool) {
	return "", r.Method == http.MethodPost && (path == "/responses" || path == chatPath)
}

// chatPath is where Chat Completions are served, below the base path.
const chatPath = "/chat/completions"

func (openAIDialect) admit(h http.Header, key string) (int, string) {
	if !bearer(h, key) {
		// Real OpenAI masks most of the key; the fake echoes all of it so
		// that tests can prove clients never surface it.
		return http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", given(h, "Authorization"))
	}
	return 0, ""
}

func (openAIDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	if strings.HasSuffix(in.Path, chatPath) {
		return chatCompletion(in, rep, id, u, nil, nil)
	}
	return responseObject(in, rep, id, u)
}

// failure is OpenAI's error envelope:
// {"error": {"message", "type", "param", "code"}}.
func (openAIDialect) failure(in Request, status int, code, msg string) any {
	typ, defCode, defMsg := "invalid_request_error", any(nil), http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		defCode = "invalid_api_key"
	case status == http.StatusForbidden:
		defCode, defMsg = "unsupported_country_region_territory", "Country, region, or territory not supported"
	case status == http.StatusNotFound:
		defCode, defMsg = "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", in.Model)
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		typ, defMsg = "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."
	case status == http.StatusTooManyRequests:
		typ, defCode, defMsg = "requests", "rate_limit_exceeded", fmt.Sprintf("Rate limit reached for %s on requests per min (RPM): Limit 3, Used 3, Requested 1.", in.Model)
	case status >= 500:
		typ, defMsg = "server_error", "The server had an error while processing your request. Sorry about that!"
	}
	var c any = defCode
	if code != "" {
		c = code
	}
	return map[string]any{"error": map[string]any{"message": pick(msg, defMsg), "type": typ, "param": nil, "code": c}}
}
