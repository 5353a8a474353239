package gateway

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/optr-dev/optr/internal/provider"
)

// The values of a command agent's gateway: list, as the provider registry
// names them (provider.GatewayNames lists them all).
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Gemini    = "gemini"
	Azure     = "azure"
)

// family is how the gateway speaks for one provider of the registry
// (whose variables and endpoint it uses): where its agents' base URL
// points, which header carries its key upstream, and the shape of its
// errors.
type family struct {
	// name is the gateway: value (the registry's Gateway); provider the
	// registry's name.
	name, provider string
	// basePath is the path of the base URL an agent gets below the
	// gateway's address: OpenAI's base URLs end in /v1, the others' in
	// the host. A request's path below it is appended to the upstream's
	// base URL.
	basePath string
	// keyHeader carries the real key upstream; bearer writes it as
	// "Authorization: Bearer <key>".
	keyHeader string
	bearer    bool
	// errorBody is the provider's error envelope.
	errorBody func(status int, e apiError) any
	// budgetStatus is the status of a refusal by the budget: what the
	// provider answers when a spend limit is reached, and which its
	// clients do not retry.
	budgetStatus int
}

// apiError is one error the gateway answers itself, in the provider's
// terms: code is OpenAI's and Azure's code, kind the error type
// (Anthropic, OpenAI) or status (Gemini).
type apiError struct {
	code, kind, message string
}

var families = []family{
	{
		name: Anthropic, provider: provider.Anthropic, keyHeader: "X-Api-Key",
		// Anthropic answers a reached spend limit with 400
		// invalid_request_error ("You have reached your specified API
		// usage limits").
		budgetStatus: http.StatusBadRequest,
		errorBody: func(_ int, e apiError) any {
			return map[string]any{"type": "error", "error": map[string]any{"type": e.kind, "message": e.message}}
		},
	},
	{
		name: OpenAI, provider: provider.OpenAI, basePath: "/v1", keyHeader: "Authorization", bearer: true,
		// OpenAI answers a spent quota with 429 insufficient_quota,
		// which its clients do not retry (with x-should-retry: false,
		// neither do its SDKs).
		budgetStatus: http.StatusTooManyRequests,
		errorBody: func(_ int, e apiError) any {
			return map[string]any{"error": map[string]any{"message": e.message, "type": e.kind, "param": nil, "code": e.code}}
		},
	},
	{
		name: Gemini, provider: provider.Gemini, keyHeader: "X-Goog-Api-Key",
		// Google answers a billing precondition with 400
		// FAILED_PRECONDITION, which no client retries (a 429
		// RESOURCE_EXHAUSTED is retried for minutes).
		budgetStatus: http.StatusBadRequest,
		errorBody: func(status int, e apiError) any {
			return map[string]any{"error": map[string]any{"code": status, "message": e.message, "status": e.kind}}
		},
	},
	{
		name: Azure, provider: provider.AzureOpenAI, keyHeader: "Api-Key",
		budgetStatus: http.StatusTooManyRequests,
		errorBody: func(_ int, e apiError) any {
			return map[string]any{"error": map[string]any{"code": e.code, "message": e.message, "type": e.kind}}
		},
	},
}

// familyOf returns the family of the provider a gateway: value names.
func familyOf(name string) (*family, bool) {
	p, ok := provider.ForGateway(name)
	i := slices.IndexFunc(families, func(f family) bool { return f.provider == p.Name })
	if !ok || i < 0 {
		return nil, false
	}
	return &families[i], true
}

// The errors the gateway answers itself.
type failure int

const (
	failUnknownKey  failure = iota // 401: no key optr gave
	failOtherAgent                 // 403: another agent's key
	failNotRunning                 // 403: the agent has no attempt running
	failTooLarge                   // 413: the body passed its bound
	failBudget                     // budgetStatus: a cap would be passed
	failUpstream                   // 502: the upstream could not be reached
	failUnsupported                // 400: a request the gateway does not forward
)

// apiErrorOf is failure f in family fam's terms.
func (fam *family) apiErrorOf(f failure, msg string) (int, apiError) {
	type row struct {
		status                    int
		anthropic, openai, gemini string // error type, error type, status
		code                      string // OpenAI's and Azure's code
	}
	r := map[failure]row{
		failUnknownKey:  {http.StatusUnauthorized, "authentication_error", "invalid_request_error", "UNAUTHENTICATED", "invalid_api_key"},
		failOtherAgent:  {http.StatusForbidden, "permission_error", "invalid_request_error", "PERMISSION_DENIED", "invalid_api_key"},
		failNotRunning:  {http.StatusForbidden, "permission_error", "invalid_request_error", "PERMISSION_DENIED", "invalid_api_key"},
		failTooLarge:    {http.StatusRequestEntityTooLarge, "request_too_large", "invalid_request_error", "INVALID_ARGUMENT", "request_too_large"},
		failBudget:      {fam.budgetStatus, "invalid_request_error", "insufficient_quota", "FAILED_PRECONDITION", "insufficient_quota"},
		failUpstream:    {http.StatusBadGateway, "api_error", "server_error", "UNAVAILABLE", "bad_gateway"},
		failUnsupported: {http.StatusBadRequest, "invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT", "unsupported_request"},
	}[f]
	kind := r.openai
	switch fam.name {
	case Anthropic:
		kind = r.anthropic
	case Gemini:
		kind = r.gemini
	}
	return r.status, apiError{code: r.code, kind: kind, message: msg}
}

// writeError answers w with failure f in fam's error shape.
func (fam *family) writeError(w http.ResponseWriter, f failure, msg string) int {
	status, e := fam.apiErrorOf(f, "optr gateway: "+msg)
	b, _ := json.Marshal(fam.errorBody(status, e))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// Neither a refused key nor a spent budget gets better by retrying:
	// the providers' SDKs honour this header.
	h.Set("X-Should-Retry", "false")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	return status
}
