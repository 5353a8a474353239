package command

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// TestMainModel: an agent without a configured model is named by the
// model that wrote most of its answers through the gateway — by output
// tokens, then by calls — never by a refused or failed call's.
func TestMainModel(t *testing.T) {
	t.Parallel()
	call := func(model string, status int, out int64) agent.Call {
		return agent.Call{Model: model, Status: status, Usage: agent.Usage{OutputTokens: out}}
	}
	for _, tt := range []struct {
		name  string
		calls []agent.Call
		want  string
	}{
		{"none", nil, ""},
		{"most output", []agent.Call{call("claude-haiku-4-5", 200, 30), call("claude-sonnet-4-5", 200, 900), call("claude-haiku-4-5", 200, 40)}, "claude-sonnet-4-5"},
		{"most calls at equal output", []agent.Call{call("a", 200, 0), call("b", 200, 0), call("b", 200, 0)}, "b"},
		{"only answered calls", []agent.Call{call("refused", 400, 0), call("cut", 429, 0), call("", 200, 50)}, ""},
		{"unknown use counts as a call", []agent.Call{call("gemini-2.5-flash", 200, 0)}, "gemini-2.5-flash"},
	} {
		if got := mainModel(tt.calls); got != tt.want {
			t.Errorf("%s: mainModel = %q, want %q", tt.name, got, tt.want)
		}
	}
}
