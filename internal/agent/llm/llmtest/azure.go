package llmtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewAzure starts a fake Azure OpenAI resource over HTTPS (the SDK sends
// Azure keys only over HTTPS; use Client). It serves Chat Completions at
// <URL>/openai/deployments/<deployment>/chat/completions?api-version=…
// and the Responses API at <URL>/openai/responses?api-version=… (URL, the
// endpoint, ends in /azure) and checks the Api-Key header. Any
// deployment name is accepted; script a 404 for a missing one.
func NewAzure(t testing.TB) *Server {
	t.Helper()
	return newServer(t, azureDialect{}, true)
}

type azureDialect struct{}

func (azureDialect) name() string                             { return "azure-openai" }
func (azureDialect) basePath() string                         { return "/azure" }
func (azureDialect) env() (string, string)                    { return "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT" }
func (azureDialect) requestIDHeader() string                  { return "apim-request-id" }
func (azureDialect) prompt(b map[string]any) (string, string) { return openAIDialect{}.prompt(b) }

func (azureDialect) route(r *http.Request, path string) (string, bool) {
	if r.Method != http.MethodPost || r.URL.Query().Get("api-version") == "" {
		return "", false
	}
	if path == "/openai/responses" {
		return "", true // the deployment is the body's model
	}
	rest, ok := strings.CutPrefix(path, "/openai/deployments/")
	if !ok {
		return "", false
	}
	dep, ok := strings.CutSuffix(rest, "/chat/completions")
	return dep, ok && dep != "" && !strings.Contains(dep, "/")
}

func (azureDialect) admit(h http.Header, key string) (int, string) {
	if h.Get("Api-Key") != key {
		return http.StatusUnauthorized, "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."
	}
	return 0, ""
}

var noFilter = map[string]any{
	"hate":      map[string]any{"filtered": false, "severity": "safe"},
	"self_harm": map[string]any{"filtered": false, "severity": "safe"},
	"sexual":    map[string]any{"filtered": false, "severity": "safe"},
	"violence":  map[string]any{"filtered": false, "severity": "safe"},
}

func (azureDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	if strings.HasSuffix(in.Path, "/responses") {
		return responseObject(in, rep, id, u)
	}
	return chatCompletion(in, rep, id, u,
		map[string]any{"prompt_filter_results": []any{map[string]any{"prompt_index": 0, "content_filter_results": noFilter}}},
		map[string]any{"content_filter_results": noFilter})
}

// failure is Azure's error envelope: {"error": {"code", "message"}}.
func (azureDialect) failure(in Request, status int, code, msg string) any {
	defCode, defMsg := "BadRequest", http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		defCode = "401"
	case status == http.StatusNotFound:
		defCode, defMsg = "DeploymentNotFound", "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."
	case status == http.StatusTooManyRequests:
		defCode, defMsg = "429", "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds."
	case status >= 500:
		defCode, defMsg = "InternalServerError", "The server had an error while processing your request."
	}
	return map[string]any{"error": map[string]any{"code": pick(code, defCode), "message": pick(msg, defMsg)}}
}
