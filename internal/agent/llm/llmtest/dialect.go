package llmtest

import (
	"net/http"

	"github.com/optr-dev/optr/internal/agent"
)

// dialect is what differs between providers.
type dialect interface {
	// name is the provider's config name.
	name() string
	// basePath is the non-root path the fake serves under.
	basePath() string
	// env names the key and base-URL variables a client reads.
	env() (keyVar, urlVar string)
	// route checks method, path (below the base path) and query, and
	// returns the deployment an Azure path names.
	route(r *http.Request, path string) (deployment string, ok bool)
	// admit checks credentials and required headers: 0 admits, otherwise
	// the status (and message) to refuse with.
	admit(h http.Header, key string) (status int, msg string)
	// prompt reads the system prompt and the user message from a body.
	prompt(body map[string]any) (system, user string)
	// success is the provider's answer object.
	success(in Request, rep Reply, id int, usage agent.Usage) any
	// failure is the provider's error envelope; code and msg may be empty.
	failure(in Request, status int, code, msg string) any
	// requestIDHeader names the header carrying the request id.
	requestIDHeader() string
}

// laxDialect is a dialect whose server answers a path it does not serve
// with its own 404 (an OpenAI-compatible server asked for the Responses
// API) instead of failing the test.
type laxDialect interface {
	dialect
	// notFound is the body of that 404.
	notFound() string
}
