package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// TestCopilotPlainTextAnswerCompletesTheRun checks issue 22 item 3 end to
// end: `optr run` with a Copilot agent in BYOK mode — the real CLI through
// the real SDK — against a server that answers the question in plain text
// (the CLI has no structured-output switch) completes, with that text as
// π*'s output. It failed as unparseable_output and paused with nothing.
func TestCopilotPlainTextAnswerCompletesTheRun(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	fake := llmtest.NewOpenAI(t)
	const text = "Ledgers are hash-chained so that no past entry can change unseen."
	fake.Script(llmtest.Reply{Text: text, Usage: agent.Usage{InputTokens: 12, OutputTokens: 14}})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "optr.yml")
	if err := os.WriteFile(cfg, []byte(`agents:
  copilot:
    provider: copilot
    byok: openai
    base-url: `+fake.URL+`
    api-key-env: OPENAI_API_KEY
    model: gpt-4.1
selection: {on-no-admissible: fail}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	run := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--intent", "Why are ledgers hash-chained?", "--run-id", "plain", "--interactive", "never")
	run.Env = append(run.Env, "OPTR_COPILOT_CLI="+cli, "OPTR_COPILOT_HOME="+home, "OPENAI_API_KEY="+fake.Key)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("optr run: %v\n%s", err, out)
	}
	result, err := os.ReadFile(filepath.Join(lake, "workflows", "local", "runs", "plain", "result.md"))
	if err != nil || strings.TrimSpace(string(result)) != text {
		t.Fatalf("result.md = %q (%v), want the plain answer\n%s", result, err, out)
	}
}
