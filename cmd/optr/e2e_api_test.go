package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// apiConfig is one openai agent at a base URL, speaking the wire format
// api names; only that line differs between the runs below.
const apiConfig = `agents:
  codex:
    provider: openai
    model: gpt-4.1
    base-url: %URL%
    api: %API%
selection: { on-no-admissible: fail }
`

// runAPI runs `optr run` as a user does in ws, with the config above
// pointed at fake, and returns the exit code, stdout and stderr.
func runAPI(t *testing.T, ws string, fake *llmtest.Server, api string) (int, string, string) {
	t.Helper()
	cfg := strings.NewReplacer("%URL%", fake.URL, "%API%", api).Replace(apiConfig)
	if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return optrIn(t, ws, map[string]string{"OPENAI_API_KEY": fake.Key},
		"run", "--config", "optr.yml", "--intent", "Write release notes", "--interactive", "never", "--json")
}

// TestRunSameConfigBothAPIs: the same config but for api: completes a run
// against a server that speaks only Chat Completions and against OpenAI's
// Responses API, each request on its own path (issue 38).
func TestRunSameConfigBothAPIs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		api  string
		fake func(testing.TB) *llmtest.Server
		path string
	}{
		{"chat-completions", llmtest.NewChatCompletions, "/compat/v1/chat/completions"},
		{"responses", llmtest.NewOpenAI, "/openai/v1/responses"},
	} {
		t.Run(tt.api, func(t *testing.T) {
			t.Parallel()
			fake := tt.fake(t)
			fake.Script(llmtest.Reply{Text: llmtest.Answer("- faster ledger verify", 800)})
			code, stdout, stderr := runAPI(t, t.TempDir(), fake, tt.api)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var out struct {
				Status   string `json:"status"`
				Selected string `json:"selected"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("--json output: %v\n%s", err, stdout)
			}
			if out.Status != "completed" || out.Selected != "codex" {
				t.Errorf("status %q selected %q, want completed codex\n%s", out.Status, out.Selected, stdout)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || reqs[0].Path != tt.path {
				t.Errorf("requests %d, first at %q; want one at %s", len(reqs), reqs[0].Path, tt.path)
			}
		})
	}
}

// TestRunResponsesAgainstChatOnlyServer: left on the Responses API, the
// same agent against the Chat Completions server fails; the log says
// there is no API at the path, and the agent's recorded error names the
// path and the key to set — not the model.
func TestRunResponsesAgainstChatOnlyServer(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fake := llmtest.NewChatCompletions(t)
	code, stdout, stderr := runAPI(t, ws, fake, "responses")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The live line is cut at 240 characters; it starts to say it.
	if !strings.Contains(stderr, "no API at POST") {
		t.Errorf("the log does not say there is no API at the path:\n%s", stderr)
	}
	outputs, err := filepath.Glob(filepath.Join(ws, ".optr", "workflows", "local", "runs", "*", "agent-outputs", "codex.json"))
	if err != nil || len(outputs) != 1 {
		t.Fatalf("agent outputs %v (%v), want one", outputs, err)
	}
	data, err := os.ReadFile(outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no API at POST " + fake.URL + "/responses", "api: chat-completions"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("the agent's error does not say %q: %s", want, res.Error)
		}
	}
	if strings.Contains(stdout+stderr+res.Error, "check that model") {
		t.Errorf("the run blames the model: %s", res.Error)
	}
}
