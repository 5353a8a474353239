package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// noCopilotCLI is an environment where the copilot agent has a token but
// no Copilot CLI (OPTR_COPILOT_CLI names nothing), so it cannot work.
func noCopilotCLI(t *testing.T) map[string]string {
	return map[string]string{"GITHUB_TOKEN": "ghs_x", "OPTR_COPILOT_CLI": filepath.Join(t.TempDir(), "no-copilot")}
}

// TestNothingUsableStopsBeforeAnything: when no agent can work, Run fails
// before any agent starts or anything is written, with the one error that
// says what to add — not an input error (exit 1, not 2).
func TestNothingUsableStopsBeforeAnything(t *testing.T) {
	t.Parallel()
	cfg := config.Default(func(string) string { return "" })
	env := noCopilotCLI(t)
	dir := t.TempDir()
	started := false
	rep, err := (&Driver{Deps: Deps{Getenv: func(k string) string { return env[k] }, OnEvent: func(executor.Event) { started = true }}}).
		Run(t.Context(), spec(t, cfg, "none-1", dir))
	var nu *NothingUsableError
	if !errors.As(err, &nu) || rep != nil || IsInputError(err) {
		t.Fatalf("Run = %v, %v; want a *NothingUsableError and no report", rep, err)
	}
	got := []string{}
	for _, f := range nu.Failures {
		got = append(got, f.Agent+"/"+f.Provider+"/"+f.Reason)
	}
	if diff := cmp.Diff([]string{"copilot/copilot/unusable"}, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	for _, m := range []string{"OPTR_COPILOT_CLI", "no-copilot"} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not mention %q", err, m)
		}
	}
	if c := nu.Comment(); !strings.Contains(c, "copilot-requests: write") || !strings.Contains(c, "OPENAI_API_KEY") {
		t.Errorf("comment does not say what to add:\n%s", c)
	}
	if started {
		t.Error("an agent started")
	}
	if _, err := os.Stat(filepath.Join(dir, ".optr")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run wrote its datalake: %v", err)
	}
}

// TestUnusableAgentLeftBehind: a usable agent carries the run; the
// unusable one is recorded as failed, unusable, after one attempt.
func TestUnusableAgentLeftBehind(t *testing.T) {
	t.Parallel()
	openai := llmtest.NewOpenAI(t)
	openai.Script(llmtest.Reply{Text: llmtest.Answer("# Notes\n\nfaster", 500)})
	env := noCopilotCLI(t)
	for k, v := range openai.Env() {
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	cfg := config.Default(getenv)
	rep, err := (&Driver{Deps: Deps{Getenv: getenv}}).Run(t.Context(), spec(t, cfg, "codex-1", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "codex" || rep.NothingUsable() != nil {
		t.Fatalf("status %s selected %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	for _, r := range rep.Results {
		if r.Agent == "copilot" && (r.Status == status.Succeeded || r.Reason != agent.ReasonUnusable || len(r.Attempts) != 1) {
			t.Errorf("copilot: %s %s after %d attempts, want unusable after 1", r.Status, r.Reason, len(r.Attempts))
		}
	}
}

// TestReportNothingUsable: a run whose every agent failed unusable (Copilot
// refused the token when asked) is told apart from an ordinary failure.
func TestReportNothingUsable(t *testing.T) {
	t.Parallel()
	refused := &executor.Result{Agent: "copilot", Provider: "copilot", Status: status.Failed, Reason: agent.ReasonUnusable,
		Error: agent.Unusable("copilot", "copilot", "GitHub Copilot refused the token in GITHUB_TOKEN (HTTP 403)").Error()}
	limited := &executor.Result{Agent: "codex", Provider: "openai", Status: status.Failed, Reason: "rate_limited", Error: "429"}
	tests := []struct {
		name    string
		results []*executor.Result
		want    bool
	}{
		{"every agent unusable", []*executor.Result{refused}, true},
		{"another failure", []*executor.Result{refused, limited}, false},
		{"no results", nil, false},
	}
	for _, tt := range tests {
		rep := &Outcome{Spec: Spec{RunID: "r-1"}, Results: tt.results}
		nu := rep.NothingUsable()
		if (nu != nil) != tt.want {
			t.Errorf("%s: NothingUsable = %v, want %v", tt.name, nu, tt.want)
		}
		if nu != nil && !strings.Contains(nu.Comment(), "HTTP 403") {
			t.Errorf("%s: the comment lacks the refusal:\n%s", tt.name, nu.Comment())
		}
	}
}
