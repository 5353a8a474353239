package llmtest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewChatCompletions starts a fake OpenAI-compatible server that speaks
// only Chat Completions, at <URL>/chat/completions (URL ends in /v1), as
// Ollama, vLLM, llama.cpp and most self-hosted and third-party servers
// do: any other path, the Responses API's included, is answered 404 "404
// page not found" in plain text, and that is no test failure. It checks
// Bearer auth with Key; set Key to "" before the first request for a
// server that needs no key (a local Ollama). Its errors are OpenAI's
// envelope with the server's own words.
func NewChatCompletions(t testing.TB) *Server {
	t.Helper()
	return newServer(t, compatDialect{}, false)
}

type compatDialect struct{}

func (compatDialect) name() string            { return "openai-compatible" }
func (compatDialect) basePath() string        { return "/compat/v1" }
func (compatDialect) env() (string, string)   { return "OPENAI_API_KEY", "OPENAI_BASE_URL" }
func (compatDialect) requestIDHeader() string { return "x-request-id" }
func (compatDialect) notFound() string        { return "404 page not found" }

func (compatDialect) prompt(b map[string]any) (string, string) { return messages(b["messages"]) }

func (compatDialect) route(r *http.Request, path string) (string, bool) {
	return "", r.Method == http.MethodPost && path == chatPath
}

func (compatDialect) admit(h http.Header, key string) (int, string) {
	if key != "" && !bearer(h, key) {
		return http.StatusUnauthorized, "invalid api key"
	}
	return 0, ""
}

func (compatDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	return chatCompletion(in, rep, id, u, nil, nil)
}

// failure is the OpenAI envelope as compatible servers fill it: an
// unknown model is a 404 whose message names the model (Ollama's words).
func (compatDialect) failure(in Request, status int, code, msg string) any {
	defMsg := http.StatusText(status)
	if status == http.StatusNotFound {
		defMsg = fmt.Sprintf("model %q not found, try pulling it first", in.Model)
	}
	return map[string]any{"error": map[string]any{"message": pick(msg, defMsg), "type": "api_error", "param": nil, "code": pickAny(code)}}
}

// pickAny is code, or null when empty.
func pickAny(code string) any {
	if code == "" {
		return nil
	}
	return code
}
