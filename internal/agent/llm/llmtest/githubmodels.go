package llmtest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewGitHubModels starts a fake GitHub Models inference API serving Chat
// Completions at <URL>/chat/completions (URL ends in /inference), with
// Bearer auth (the workflow's GITHUB_TOKEN).
func NewGitHubModels(t testing.TB) *Server {
	t.Helper()
	return newServer(t, gitHubModelsDialect{}, false)
}

type gitHubModelsDialect struct{}

func (gitHubModelsDialect) name() string                             { return "github-models" }
func (gitHubModelsDialect) basePath() string                         { return "/inference" }
func (gitHubModelsDialect) env() (string, string)                    { return "GITHUB_TOKEN", "OPTR_GITHUB_MODELS_URL" }
func (gitHubModelsDialect) requestIDHeader() string                  { return "x-request-id" }
func (gitHubModelsDialect) prompt(b map[string]any) (string, string) { return messages(b["messages"]) }

func (gitHubModelsDialect) route(r *http.Request, path string) (string, bool) {
	return "", r.Method == http.MethodPost && path == "/chat/completions"
}

func (gitHubModelsDialect) admit(h http.Header, key string) (int, string) {
	if !bearer(h, key) {
		return http.StatusUnauthorized, "Bad credentials"
	}
	return 0, ""
}

func (gitHubModelsDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	return chatCompletion(in, rep, id, u, nil, nil)
}

// failure is GitHub Models' error envelope:
// {"error": {"code", "message", "details"}}.
func (gitHubModelsDialect) failure(in Request, status int, code, msg string) any {
	defCode, defMsg := "bad_request", http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		defCode, defMsg = "unauthorized", "Bad credentials"
	case status == http.StatusForbidden:
		defCode, defMsg = "no_access", fmt.Sprintf("No access to model: %s", in.Model)
	case status == http.StatusNotFound:
		defCode, defMsg = "unknown_model", fmt.Sprintf("Unknown model: %s", in.Model)
	case status == http.StatusRequestEntityTooLarge:
		defCode, defMsg = "tokens_limit_reached", fmt.Sprintf("Request body too large for %s model. Max size: 8000 tokens.", in.Model)
	case status == http.StatusTooManyRequests:
		defCode, defMsg = "RateLimitReached", "Rate limit of 10 per 60s exceeded for UserByModelByMinute. Please wait 42 seconds before retrying."
	case status >= 500:
		defCode, defMsg = "internal_error", "An internal error occurred."
	}
	m := pick(msg, defMsg)
	return map[string]any{"error": map[string]any{"code": pick(code, defCode), "message": m, "details": m}}
}
