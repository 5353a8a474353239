package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/provider"
)

// TestProblem: the comment shows what is missing, not the classification.
func TestProblem(t *testing.T) {
	t.Parallel()
	refused := agent.Unusable("copilot", "copilot", "GitHub Copilot refused the token")
	refused.Status = 403
	tests := []struct {
		name, msg, want string
	}{
		{"unusable error", agent.Unusable("copilot", "copilot", "no CLI").Error(), `agent "copilot" (copilot) cannot run here: no CLI`},
		{"with an HTTP status", refused.Error(), `agent "copilot" (copilot) cannot run here: GitHub Copilot refused the token`},
		{"wrapped twice", "fatal unusable: fatal unusable: x", "x"},
		{"another failure is kept", "fatal bad_config: no key", "fatal bad_config: no key"},
	}
	for _, tt := range tests {
		if got := agent.Problem(tt.msg); got != tt.want {
			t.Errorf("%s: Problem(%q) = %q, want %q", tt.name, tt.msg, got, tt.want)
		}
	}
}

// TestUnusableComment: one comment only when every agent is unusable, and
// it names each agent's problem and the three ways to fix it.
func TestUnusableComment(t *testing.T) {
	t.Parallel()
	unusable := func(name, provider, problem string) agent.Failure {
		return agent.Failure{Agent: name, Provider: provider, Reason: agent.ReasonUnusable, Message: agent.Unusable(name, provider, problem).Error()}
	}
	tests := []struct {
		name     string
		failures []agent.Failure
		ok       bool
	}{
		{"none", nil, false},
		{"all unusable", []agent.Failure{unusable("copilot", "copilot", "the Copilot CLI is not installed")}, true},
		{"one failed otherwise", []agent.Failure{unusable("copilot", "copilot", "no CLI"), {Agent: "codex", Provider: "openai", Reason: "rate_limited", Message: "429"}}, false},
	}
	for _, tt := range tests {
		body, ok := agent.UnusableComment("7-1", tt.failures)
		if diff := cmp.Diff(tt.ok, ok); diff != "" {
			t.Errorf("%s: ok (-want +got):\n%s", tt.name, diff)
		}
		if !ok {
			if body != "" {
				t.Errorf("%s: body %q without ok", tt.name, body)
			}
			continue
		}
		for _, m := range []string{"copilot-requests: write", "Allow use of Copilot CLI billed to the organization", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "the Copilot CLI is not installed"} {
			if !strings.Contains(body, m) {
				t.Errorf("%s: the comment does not mention %q:\n%s", tt.name, m, body)
			}
		}
		if strings.Contains(body, "fatal unusable") {
			t.Errorf("%s: the comment shows the classification:\n%s", tt.name, body)
		}
	}
}

// TestUnusableCommentNamesEveryDefaultProvider: the fixes offered are the
// providers of the embedded default config, each with its key.
func TestUnusableCommentNamesEveryDefaultProvider(t *testing.T) {
	t.Parallel()
	body, ok := agent.UnusableComment("7-1", []agent.Failure{{Agent: "copilot", Provider: "copilot", Reason: agent.ReasonUnusable, Message: "no CLI"}})
	if !ok {
		t.Fatal("no comment")
	}
	for i, p := range provider.Defaults() {
		item := fmt.Sprintf("%d. **%s**", i+1, p.Title)
		if !strings.Contains(body, item) {
			t.Errorf("the comment lacks %q:\n%s", item, body)
		}
		if p.Setup == "" && !strings.Contains(body, "secrets."+p.KeyEnv[0]) {
			t.Errorf("the comment does not say to pass %s from a secret:\n%s", p.KeyEnv[0], body)
		}
	}
}

// TestPreflight: only a Preflighter can report itself unusable.
func TestPreflight(t *testing.T) {
	t.Parallel()
	if err := agent.Preflight(agenttest.New("plain", agenttest.Answer("not run"))); err != nil {
		t.Errorf("Preflight(plain) = %v, want nil", err)
	}
	want := agent.Unusable("p", "copilot", "no CLI")
	if err := agent.Preflight(preflighted{Agent: agenttest.New("p", agenttest.Answer("not run")), err: want}); !agent.IsUnusable(err) {
		t.Errorf("Preflight = %v, want %v", err, want)
	}
}

// preflighted is an agent with a Preflight.
type preflighted struct {
	*agenttest.Agent
	err error
}

func (p preflighted) Preflight() error { return p.err }
