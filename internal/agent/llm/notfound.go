package llm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/optr-dev/optr/internal/provider"
)

// modelCodes are the error codes and types with which the providers answer
// 404 for a model (or Azure deployment) they do not have: OpenAI's
// model_not_found, Azure's DeploymentNotFound, Anthropic's not_found_error
// (on /v1/messages the only thing not found is the model), Gemini's
// NOT_FOUND.
var modelCodes = []string{"model_not_found", "DeploymentNotFound", "not_found_error", "NOT_FOUND"}

// modelNotFound reports whether a 404 answer says the model is missing —
// by its code, or by naming the model (as Ollama and other
// OpenAI-compatible servers do) — rather than that nothing is served at
// the path.
func (a *llmAgent) modelNotFound(e *APIError) bool {
	for _, c := range modelCodes {
		if e.Code == c || e.Type == c {
			return true
		}
	}
	return a.model != "" && strings.Contains(e.Message, a.model)
}

// pathAdvice says what to check when the API answered 404 for the path
// itself: the URL the request went to (without its query), then the
// likeliest fix first — for the Responses API, the servers that speak
// only Chat Completions — then the base URL's convention.
func (a *llmAgent) pathAdvice(raw *http.Response) string {
	where := "the endpoint"
	if raw.Request != nil && raw.Request.URL != nil {
		u := *raw.Request.URL
		u.RawQuery, u.User = "", nil
		where = raw.Request.Method + " " + u.String()
	}
	advice := "no API at " + where + ": "
	if a.wire == provider.Responses {
		advice += "a server that speaks only Chat Completions (most OpenAI-compatible ones) needs api: chat-completions; else "
	}
	advice += "check base-url (or its variable)"
	if p, ok := provider.Lookup(a.provider); ok && p.ExampleURL != "" {
		advice += fmt.Sprintf(": %s base URLs are written like %s", p.Title, p.ExampleURL)
	}
	return advice
}
