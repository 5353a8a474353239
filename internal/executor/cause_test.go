package executor

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/recovery"
)

// Cause puts what went wrong first, not the escalation that wraps it.
func TestCause(t *testing.T) {
	t.Parallel()
	attempt := func(class agent.Class, err string) []recovery.Attempt {
		return []recovery.Attempt{{N: 1, Class: class, Error: err}}
	}
	tests := []struct {
		name string
		r    Result
		want string
	}{
		{"a command's exit, and the end of its stderr", Result{
			Error:    "agent broken escalated after 1 attempt(s): no recovery.analyzer is configured to suggest an alternative: systematic exit_status: sh exited with status 3; the end of stderr:\nbroken: cannot reach the model (simulated)",
			Attempts: attempt(agent.Systematic, "systematic exit_status: sh exited with status 3; the end of stderr:\nstarting\nbroken: cannot reach the model (simulated)\n"),
		}, "exit_status: sh exited with status 3 — broken: cannot reach the model (simulated)"},
		{"a provider's refusal", Result{
			Error:    "agent codex escalated after 1 attempt(s): fatal failure: fatal auth (HTTP 401): the key was refused: check OPENAI_API_KEY",
			Attempts: attempt(agent.Fatal, "fatal auth (HTTP 401): the key was refused: check OPENAI_API_KEY"),
		}, "auth (HTTP 401): the key was refused: check OPENAI_API_KEY"},
		{"the sandbox's refusal first", Result{
			Attempts: attempt(agent.Systematic, "systematic exit_status: the sandbox refused its connections to api.example:443 (not in sandbox.network), the likely cause: list what the agent must reach in sandbox.network; sh exited with status 1; stderr was empty"),
		}, "exit_status: the sandbox refused its connections to api.example:443 (not in sandbox.network), the likely cause: list what the agent must reach in sandbox.network; sh exited with status 1; stderr was empty"},
		{"no attempt", Result{Error: "agent copilot cannot run here: no token\nmore"}, "agent copilot cannot run here: no token"},
		{"a result", Result{Output: "done"}, ""},
	}
	for _, tt := range tests {
		if got := tt.r.Cause(); got != tt.want {
			t.Errorf("%s: Cause() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
