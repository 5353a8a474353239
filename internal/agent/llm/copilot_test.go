package llm_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// copilotEnv is the environment of a BYOK copilot agent against fake: the
// real CLI, the HOME it unpacked itself in, the fake's key.
func copilotEnv(t *testing.T, cli, home string, fake *llmtest.Server) map[string]string {
	return map[string]string{
		"OPTR_COPILOT_CLI": cli,
		"HOME":             home,
		"PATH":             "/usr/bin:/bin",
		"TMPDIR":           t.TempDir(),
		"OPENAI_API_KEY":   fake.Key,
	}
}

// TestCopilotBYOKRealCLI drives the real Copilot CLI through the real SDK in
// BYOK mode against the fake OpenAI API: one request per attempt (the CLI's
// own retries never reach the network), the prompt as sent, no tools, and
// the answer, tokens and model read back.
func TestCopilotBYOKRealCLI(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	tests := []struct {
		name  string
		reply llmtest.Reply
		// want is the classification; empty Class means success.
		want classified
	}{
		{"answer", llmtest.Reply{Text: llmtest.Answer("# Notes\n\n- copilot answered\n", 1500), Usage: agent.Usage{InputTokens: 321, OutputTokens: 45}}, classified{}},
		{"500 is one request, transient", llmtest.Reply{Status: 500}, classified{agent.Transient, "server_error", 500, 0}},
		{"401 is one request, fatal", llmtest.Reply{Status: 401, Text: "Incorrect API key provided"}, classified{agent.Fatal, "unauthorized", 401, 0}},
		{"410 is fatal with the body's message", llmtest.Reply{Status: 410, Text: "This endpoint was retired on 2026-07-30."}, classified{agent.Fatal, "gone", 410, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := llmtest.NewOpenAI(t)
			fake.Script(tt.reply)
			env := copilotEnv(t, cli, home, fake)
			cfg := config.Agent{Provider: config.ProviderCopilot, BYOK: config.BYOKOpenAI, BaseURL: fake.URL, Model: "gpt-4.1", MaxTokens: 2000}
			a, err := llm.New("copilot", cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			const intent = "Write release notes for the ledger speed-up."
			res, err := a.Run(t.Context(), agent.Request{Intent: intent, Constraints: []string{"no-todo"}})
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the fake got %d requests, want 1 (err %v)", len(reqs), err)
			}
			r := reqs[0]
			if !strings.HasSuffix(r.Path, "/chat/completions") || r.Header.Get("Authorization") != "Bearer "+fake.Key || r.Model != "gpt-4.1" {
				t.Errorf("request %s %s model %q auth %q", r.Method, r.Path, r.Model, r.Header.Get("Authorization"))
			}
			if !strings.Contains(r.User, intent) || !strings.Contains(r.System, "no-todo") || !strings.Contains(r.System, "untrusted") {
				t.Errorf("prompt as sent: system %q user %q", r.System, r.User)
			}
			if tools, ok := r.Body["tools"].([]any); ok && len(tools) > 0 {
				t.Errorf("a text agent was offered %d tools", len(tools))
			}
			if tt.want.Class == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				want := agent.Response{Output: "# Notes\n\n- copilot answered\n", TTV: res.TTV, Model: "gpt-4.1", Usage: agent.Usage{InputTokens: 321, OutputTokens: 45}}
				if diff := cmp.Diff(want, res, ignoreFirstOutput); diff != "" || res.TTV <= 0 {
					t.Errorf("response (-want +got):\n%s", diff)
				}
				return
			}
			e := agentError(t, err)
			if diff := cmp.Diff(tt.want, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
				t.Errorf("classification of %v (-want +got):\n%s", err, diff)
			}
			if tt.reply.Text != "" && !strings.Contains(err.Error(), tt.reply.Text) {
				t.Errorf("error %q lacks the provider's message %q", err, tt.reply.Text)
			}
			noKey(t, err, fake.Key)
		})
	}
}

// TestCopilotUnusable: without the CLI, or without a token for Copilot's own
// models, the agent is built but every attempt fails at once, fatal and
// unusable, saying what to add.
func TestCopilotUnusable(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	fakeCLI := filepath.Join(t.TempDir(), "copilot")
	if err := os.WriteFile(fakeCLI, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		mention []string
	}{
		{"no CLI", map[string]string{"GITHUB_TOKEN": "ghs_x", "PATH": empty}, []string{"OPTR_COPILOT_CLI", "npm", "@github/copilot"}},
		{"OPTR_COPILOT_CLI not a program", map[string]string{"GITHUB_TOKEN": "ghs_x", "OPTR_COPILOT_CLI": empty}, []string{"OPTR_COPILOT_CLI", empty}},
		{"no token", map[string]string{"PATH": filepath.Dir(fakeCLI)}, []string{"COPILOT_GITHUB_TOKEN", "GITHUB_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := llm.New("copilot", config.Agent{Provider: config.ProviderCopilot}, llm.Options{Getenv: func(k string) string { return tt.env[k] }})
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			if perr := agent.Preflight(a); !agent.IsUnusable(perr) {
				t.Errorf("Preflight = %v, want the unusable error before any run", perr)
			}
			_, err = a.Run(t.Context(), agent.Request{Intent: "x"})
			e := agentError(t, err)
			if e.Class != agent.Fatal || e.Reason != agent.ReasonUnusable || !agent.IsUnusable(err) {
				t.Fatalf("got %s %s, want fatal unusable: %v", e.Class, e.Reason, err)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			noKey(t, err, "ghs_x")
		})
	}
}

// TestCopilotPreflightUsable: with a CLI and a token the agent may work;
// only running it can tell whether Copilot accepts the token.
func TestCopilotPreflightUsable(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(t.TempDir(), "copilot")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_x", "OPTR_COPILOT_CLI": cli}
	a, err := llm.New("copilot", config.Agent{Provider: config.ProviderCopilot}, llm.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	if err := agent.Preflight(a); err != nil {
		t.Errorf("Preflight = %v, want nil", err)
	}
}

// TestCopilotRefusedIsUnusable: Copilot answering 401 or 403 to the
// workflow's token is fatal and says what to grant; it is not retried.
func TestCopilotRefusedIsUnusable(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		e := llm.CopilotRefusedForTest(status, "Copilot is not enabled for this organization")
		if e.Class != agent.Fatal || e.Reason != agent.ReasonUnusable || e.Status != status {
			t.Errorf("HTTP %d: got %s %s (HTTP %d), want fatal unusable", status, e.Class, e.Reason, e.Status)
		}
		for _, m := range []string{"copilot-requests: write", "Allow use of Copilot CLI billed to the organization", "Copilot is not enabled for this organization"} {
			if !strings.Contains(e.Error(), m) {
				t.Errorf("HTTP %d: %q does not mention %q", status, e.Error(), m)
			}
		}
	}
}

// TestCopilotSessionErrors: the CLI's own session errors (raised before
// or without a model answer) are classified like HTTP answers.
func TestCopilotSessionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		typ    string
		want   classified
	}{
		{401, "authentication", classified{agent.Fatal, agent.ReasonUnusable, 401, 0}},
		{403, "authorization", classified{agent.Fatal, agent.ReasonUnusable, 403, 0}},
		{410, "query", classified{agent.Fatal, "gone", 410, 0}},
		{429, "rate_limit", classified{agent.Transient, "rate_limited", 429, 0}},
		{402, "quota", classified{agent.Fatal, "quota_exceeded", 402, 0}},
	}
	for _, tt := range tests {
		err := llm.CopilotSessionErrorForTest(tt.status, tt.typ, "the service said no")
		e := agentError(t, err)
		if diff := cmp.Diff(tt.want, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
			t.Errorf("HTTP %d %s (-want +got):\n%s", tt.status, tt.typ, diff)
		}
		if !strings.Contains(err.Error(), "the service said no") {
			t.Errorf("HTTP %d: %q lacks the service's message", tt.status, err)
		}
		if tt.want.Reason == agent.ReasonUnusable && !strings.Contains(err.Error(), "copilot-requests: write") {
			t.Errorf("HTTP %d: %q does not say what to grant", tt.status, err)
		}
	}
}

// TestCopilotPlainTextAnswerRealCLI checks issue 22 item 3 with the real
// Copilot CLI in BYOK mode: the CLI has no structured-output switch, and a
// server that answers the question in plain text (no {"output": …}
// wrapper) gives that text as the agent's output, not an
// unparseable_output failure that paused the run with nothing.
func TestCopilotPlainTextAnswerRealCLI(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	fake := llmtest.NewOpenAI(t)
	const text = "Ledgers are hash-chained so that no past entry can change unseen."
	fake.Script(llmtest.Reply{Text: text, Usage: agent.Usage{InputTokens: 12, OutputTokens: 14}})
	env := copilotEnv(t, cli, home, fake)
	cfg := config.Agent{Provider: config.ProviderCopilot, BYOK: config.BYOKOpenAI, BaseURL: fake.URL, Model: "gpt-4.1", MaxTokens: 2000}
	a, err := llm.New("copilot", cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	res, err := a.Run(t.Context(), agent.Request{Intent: "Why are ledgers hash-chained?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != text || res.TTV != 0 {
		t.Errorf("output %q TTV %v, want the plain answer with no TTV", res.Output, res.TTV)
	}
}
