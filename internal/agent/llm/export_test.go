package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	copilot "github.com/github/copilot-sdk/go"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// NewForProviderForTest is New for a provider that is not in the
// registry, such as a keyless local server.
func NewForProviderForTest(name string, p provider.Provider, cfg config.Agent, opts Options) (agent.Agent, error) {
	return newAgent(name, p, cfg, opts)
}

// copilotAgentForTest is a copilot agent on Copilot's own models, as
// newCopilot sets it up with the workflow's token.
func copilotAgentForTest() *llmAgent {
	return &llmAgent{base: base{name: "copilot", provider: config.ProviderCopilot, keyVar: "GITHUB_TOKEN", copilotAuth: true}}
}

// CopilotRefusedForTest classifies Copilot's HTTP answer status, whose body
// carries msg, the way an attempt does.
func CopilotRefusedForTest(status int, msg string) *agent.Error {
	a := copilotAgentForTest()
	raw := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"error":{"message":"` + msg + `"}}`))}
	ctx := context.Background()
	return a.classify(ctx, ctx, raw, errors.New(http.StatusText(status)))
}

// CopilotSessionErrorForTest classifies a session.error event of the CLI.
func CopilotSessionErrorForTest(status int, errorType, msg string) error {
	s := &copilotSetup{b: &copilotAgentForTest().base}
	code := int32(status)
	return s.sessionError(&copilot.SessionErrorData{StatusCode: &code, ErrorType: errorType, Message: msg})
}
