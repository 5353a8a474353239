package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// TestRunOverTheDaysBudgetIsRefused: with today's recorded runs past
// budget.max-usd-per-day, optr run is refused (exit 2) with the figures before
// the model sees a request, and records nothing.
func TestRunOverTheDaysBudgetIsRefused(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	fake := llmtest.NewOpenAI(t)
	cfgPath := filepath.Join(dir, "optr.yml")
	cfg := "agents:\n  codex: {provider: openai, model: gpt-4.1, base-url: " + fake.URL + ", api-key-env: CODEX_KEY}\nbudget: {max-usd-per-day: 0.01}\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	ledgerPath := filepath.Join(lake, "ledger.jsonl")
	if err := os.MkdirAll(lake, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Append(ledgerPath, ledger.Draft{Kind: ledger.KindRun, Run: "earlier", Workflow: "local", Time: now.Add(-time.Hour),
		Fields: map[string]any{"tokens": int64(6000), "cost_usd": 0.02, "results": []any{}}}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		c := New()
		c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
		c.Getenv = func(k string) string {
			if k == "CODEX_KEY" {
				return fake.Key
			}
			return ""
		}
		c.HTTPClient, c.Now = fake.Client(), func() time.Time { return now }
		c.IsTerminal = func(any) bool { return false }
		args := []string{"run", "--config", cfgPath, "--datalake", lake, "--intent", "Write the release notes"}
		if asJSON {
			args = append(args, "--json")
		}
		code := c.Run(t.Context(), args)
		figures := "budget.max-usd-per-day: $0.02 of $0.01 spent today (UTC)"
		if code != ExitUsage || !strings.Contains(stderr.String(), figures) {
			t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, stderr.String(), figures)
		}
		if asJSON {
			var out Outcome
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Status != "failed" || !strings.Contains(out.Error, figures) {
				t.Errorf("--json outcome %s (%v)", stdout.String(), err)
			}
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
	if after, _ := os.ReadFile(ledgerPath); !bytes.Equal(before, after) {
		t.Errorf("the ledger changed:\n%s", after)
	}
}

// TestNoUsableAgentIsRefused: the embedded default with no Copilot CLI and
// no key cannot run any agent: optr run is refused before any starts with
// the same exit code as every refusal (2), saying what to add, and writes
// nothing.
func TestNoUsableAgentIsRefused(t *testing.T) {
	ws := t.TempDir()
	t.Chdir(ws)
	got := optrEnv(t, map[string]string{"OPTR_COPILOT_CLI": filepath.Join(ws, "no-copilot")}, "run", "--intent", "x")
	if got.code != ExitUsage || !strings.Contains(got.stderr, "no agent can run here") || !strings.Contains(got.stderr, "COPILOT_GITHUB_TOKEN") {
		t.Errorf("exit %d, stderr %q; want exit 2 saying no agent can run here and what to add", got.code, got.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, ".optr")); !os.IsNotExist(err) {
		t.Errorf("a refused run left .optr behind (%v)", err)
	}
}
