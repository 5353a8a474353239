package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
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

// TestKnownSpendCountsTowardTheDay: a run with a priced agent, an agent
// no price covers and one whose model answered without usage records its
// known part with the unknown flagged — never a 0 for what it could not
// know — and that known part counts toward the day's budget: the next run
// over it is refused (exit 2), saying that some spend was unknown.
func TestKnownSpendCountsTowardTheDay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	priced, unpriced, silent := llmtest.NewOpenAI(t), llmtest.NewOpenAI(t), llmtest.NewOpenAI(t)
	priced.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Notes", 10), Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}})
	unpriced.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Notes", 10), Usage: agent.Usage{InputTokens: 500, OutputTokens: 50}})
	silent.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Notes", 10), NoUsage: true})
	keys := map[string]string{"PRICED_KEY": priced.Key, "UNPRICED_KEY": unpriced.Key, "SILENT_KEY": silent.Key}
	cfgPath := filepath.Join(dir, "optr.yml")
	cfg := fmt.Sprintf(`agents:
  priced: {provider: openai, model: gpt-4.1, base-url: %s, api-key-env: PRICED_KEY}
  unpriced: {provider: openai, model: local-llama, base-url: %s, api-key-env: UNPRICED_KEY}
  silent: {provider: openai, model: gpt-4.1, base-url: %s, api-key-env: SILENT_KEY}
budget: {max-usd-per-day: %%s}
`, priced.URL, unpriced.URL, silent.URL)
	lake := filepath.Join(dir, ".optr")
	run := func(perDay string) (int, string, string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(cfg, perDay)), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		c := New()
		c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
		c.Getenv = func(k string) string { return keys[k] }
		c.HTTPClient, c.Now = priced.Client(), func() time.Time { return now }
		c.IsTerminal = func(any) bool { return false }
		code := c.Run(t.Context(), []string{"run", "--config", cfgPath, "--datalake", lake, "--intent", "Write the release notes", "--interactive", "never", "--json"})
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := run("5")
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// gpt-4.1 at $2 in, $8 out a million: 1000 in, 100 out.
	const known = 0.0028
	var entry struct {
		Tokens        *int64   `json:"tokens"`
		CostUSD       *float64 `json:"cost_usd"`
		TokensUnknown bool     `json:"tokens_unknown"`
		CostUnknown   bool     `json:"cost_unknown"`
		Results       []struct {
			Agent     string   `json:"agent"`
			TokensIn  *int64   `json:"tokens_in"`
			CostUSD   *float64 `json:"cost_usd"`
			CostUnk   bool     `json:"cost_unknown"`
			TokensUnk bool     `json:"tokens_unknown"`
		} `json:"results"`
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(lake, "ledger.jsonl"))), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Tokens == nil || *entry.Tokens != 1650 || !entry.TokensUnknown || entry.CostUSD == nil || math.Abs(*entry.CostUSD-known) > 1e-9 || !entry.CostUnknown {
		t.Errorf("the run recorded %s; want 1650 tokens and $%g, each with an unknown part", lines[len(lines)-1], known)
	}
	for _, r := range entry.Results {
		switch r.Agent {
		case "unpriced":
			if r.TokensIn == nil || *r.TokensIn != 500 || r.CostUSD != nil || !r.CostUnk {
				t.Errorf("unpriced: %+v; want 500 tokens in and an unknown cost", r)
			}
		case "silent":
			if r.TokensIn != nil || r.CostUSD != nil || !r.TokensUnk || !r.CostUnk {
				t.Errorf("silent: %+v; want tokens and cost unknown (null)", r)
			}
		}
	}
	code, _, stderr = run("0.002")
	figures := "budget.max-usd-per-day: $0.0028 of $0.002 spent today (UTC) (the known part: 1 earlier run spent cost optr could not know, not counted)"
	if code != ExitUsage || !strings.Contains(stderr, figures) {
		t.Errorf("second run: exit %d, stderr %q; want exit 2 with %q", code, stderr, figures)
	}
}
