package pipeline

import (
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
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// TestCostCountsJudges: a run over the three HTTP providers, each output
// judged by a fourth agent, reports every agent's tokens and cost — its
// attempt at its model's built-in price plus the judge's call on its
// output — and a run total that is their sum, in the table and in the
// ledger (issue 22.6: judges were left out, and no price meant $0).
func TestCostCountsJudges(t *testing.T) {
	t.Parallel()
	judge := llmtest.NewOpenAI(t)
	f := newFakes(t, fmt.Sprintf(`  judge: { provider: openai, model: gpt-4.1-mini, base-url: %q }
pipelines:
  three: { agents: [codex, claude, mscopilot] }
constraints:
  on-topic: { check: judge, agent: judge }
`, judge.URL))
	u := agent.Usage{InputTokens: 1000, OutputTokens: 100}
	for i, s := range []*llmtest.Server{f.openai, f.anthropic, f.azure} {
		s.SetDefault(llmtest.Reply{Text: llmtest.Answer(fmt.Sprintf("# Summary %d\n\nIt is faster.", i), 800), Usage: u})
	}
	judge.SetDefault(llmtest.Reply{Text: llmtest.Answer(`{"pass": true, "reason": "on topic"}`, 1), Usage: u})
	dir := t.TempDir()
	// codex and the judge are two OpenAI fakes, each with its own key.
	f.cfg.Agents["codex"] = withKey(f.cfg.Agents["codex"], "CODEX_KEY")
	f.cfg.Agents["judge"] = withKey(f.cfg.Agents["judge"], "JUDGE_KEY")
	keys := map[string]string{"CODEX_KEY": f.openai.Key, "JUDGE_KEY": judge.Key}
	deps := Deps{HTTPClient: f.azure.Client(), Getenv: func(k string) string {
		if v, ok := keys[k]; ok {
			return v
		}
		return f.getenv(k)
	}}
	sp := spec(t, f.cfg, "cost-1", dir)
	sp.Pipeline = "three"
	rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(judge.Requests()) != 3 {
		t.Fatalf("the judge got %d requests, want one per output", len(judge.Requests()))
	}
	priced := func(in, out float64) float64 { return (1000*in + 100*out) / 1e6 }
	judged := priced(0.40, 1.60) // gpt-4.1-mini
	want := map[string]float64{
		"codex":     priced(2, 8) + judged,     // gpt-4.1
		"claude":    priced(3, 15) + judged,    // claude-sonnet-4-5
		"mscopilot": priced(2.50, 10) + judged, // the Azure deployment's model, gpt-4o
	}
	var sum float64
	for _, row := range rep.Table() {
		if row.CostUSD == nil || math.Abs(*row.CostUSD-want[row.Agent]) > 1e-12 || row.Tokens == nil || *row.Tokens != 2200 || row.TokensUnknown || row.CostUnknown {
			t.Errorf("%s: %+v; want $%g, 2200 tokens, all known", row.Agent, row, want[row.Agent])
			continue
		}
		sum += *row.CostUSD
	}
	total := rep.Total()
	if usd, ok := total.Cost(); !ok || math.Abs(usd-sum) > 1e-12 || total.Tokens() != 3*2200 {
		t.Errorf("run total %+v, want $%g and %d tokens: the sum of its agents'", total, sum, 3*2200)
	}

	run := lastRun(t, sp.LedgerPath)
	if got := number(t, run.Fields["cost_usd"]); math.Abs(got-sum) > 1e-12 || number(t, run.Fields["tokens"]) != 3*2200 {
		t.Errorf("ledger run totals tokens=%v cost_usd=%v, want %d and %g", run.Fields["tokens"], run.Fields["cost_usd"], 3*2200, sum)
	}
	for _, r := range run.Fields["results"].([]any) {
		res := r.(map[string]any)
		name := res["agent"].(string)
		if got := number(t, res["cost_usd"]); math.Abs(got-want[name]) > 1e-12 || number(t, res["tokens_in"]) != 2000 || number(t, res["tokens_out"]) != 200 {
			t.Errorf("ledger result %s: %v", name, res)
		}
	}
}

// TestUnknownCostIsEmpty: a command agent outside the model gateway spends
// what optr cannot see: the table, the run total and the ledger record its
// tokens and cost as null and flag them unknown, never as 0.
func TestUnknownCostIsEmpty(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("cmd.yml", []byte("agents:\n  echo: {provider: command, run: [sh, -c, 'cat >/dev/null; echo done']}\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sp := spec(t, cfg, "unknown-1", dir)
	rep, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), sp)
	if err != nil || rep.Status != status.Completed {
		t.Fatalf("run: %v %+v", err, rep)
	}
	if row := rep.Table()[0]; row.CostUSD != nil || row.Tokens != nil || !row.CostUnknown || !row.TokensUnknown {
		t.Errorf("table row = %+v, want tokens and cost unknown", row)
	}
	if _, ok := rep.Total().Cost(); ok || rep.Total().TokensKnown() {
		t.Errorf("run total %+v is known", rep.Total())
	}
	run := lastRun(t, sp.LedgerPath)
	for _, k := range []string{"tokens", "cost_usd"} {
		if v, ok := run.Fields[k]; !ok || v != nil {
			t.Errorf("the run entry records %s %v, want null", k, v)
		}
	}
	if run.Fields["tokens_unknown"] != true || run.Fields["cost_unknown"] != true {
		t.Errorf("the run entry does not flag its unknown totals: %v", run.Fields)
	}
	res := run.Fields["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"tokens_in", "tokens_out", "cost_usd"} {
		if v, ok := res[k]; !ok || v != nil {
			t.Errorf("the result records %s %v, want null", k, v)
		}
	}
	if res["tokens_unknown"] != true || res["cost_unknown"] != true {
		t.Errorf("the result does not flag its unknowns: %v", res)
	}
	sel, err := json.Marshal(rep.SelectionFile().Table)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(sel, &rows); err != nil || rows[0]["cost_usd"] != nil || rows[0]["tokens"] != nil {
		t.Errorf("optr-selection.json table: %s", sel)
	}
	agentFile, err := os.ReadFile(filepath.Join(rep.RunDir, "agent-outputs", "echo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var result map[string]any
	if err := json.Unmarshal(agentFile, &result); err != nil || result["usage"] != nil {
		t.Errorf("agent-outputs/echo.json usage = %v, want null", result["usage"])
	}
}

func withKey(a config.Agent, env string) config.Agent {
	a.APIKeyEnv = env
	return a
}

// lastRun is the last run entry of the ledger at path.
func lastRun(t *testing.T, path string) ledger.Entry {
	t.Helper()
	var run ledger.Entry
	for _, e := range ledgerEntries(t, path) {
		if e.Kind == ledger.KindRun {
			run = e
		}
	}
	if run.Kind == "" {
		t.Fatal("no run entry")
	}
	return run
}

// number reads a ledger number (a json.Number).
func number(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRunStopsAtItsCap: once the run reaches its own cap, or what the
// day's budget had left, no further attempt is launched (agents run one
// at a time here: the second never starts), and the run says which cap,
// with the figures.
func TestRunStopsAtItsCap(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, budget string
		before       float64 // recorded today
		figures      string
	}{
		{"the run's own", "max-usd-per-run: 0.001", 0, "budget.max-usd-per-run: $0.0028 of $0.001 spent this run"},
		{"the day's", "max-usd-per-day: 0.01", 0.0095, "budget.max-usd-per-day: $0.0123 of $0.01 spent today (UTC)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, second := llmtest.NewOpenAI(t), llmtest.NewOpenAI(t)
			first.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Notes\n\nFaster.", 10), Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}})
			cfg, err := config.Parse("cap.yml", []byte(fmt.Sprintf(`agents:
  first: {provider: openai, model: gpt-4.1, base-url: %q, api-key-env: FIRST_KEY}
  second: {provider: openai, model: gpt-4.1, base-url: %q, api-key-env: SECOND_KEY}
executor: {max-parallel: 1}
budget: {%s}
`, first.URL, second.URL, tt.budget)))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			sp := spec(t, cfg, "cap-1", dir)
			if tt.before > 0 {
				if _, err := ledger.Append(sp.LedgerPath, ledger.Draft{Kind: ledger.KindRun, Run: "earlier", Workflow: "w", Time: now.Add(-time.Hour),
					Fields: map[string]any{"tokens": int64(10), "cost_usd": tt.before}}); err != nil {
					t.Fatal(err)
				}
			}
			keys := map[string]string{"FIRST_KEY": first.Key, "SECOND_KEY": second.Key}
			deps := Deps{Getenv: func(k string) string { return keys[k] }, Now: func() time.Time { return now }}
			rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(second.Requests()); n != 0 {
				t.Errorf("the second agent sent %d requests after the cap was reached", n)
			}
			if r := rep.result("second"); r == nil || !r.BudgetExhausted || len(r.Attempts) != 0 {
				t.Errorf("second = %+v, want stopped by the budget before any attempt", r)
			}
			if rep.Status != status.Paused || rep.Trigger != "BUDGET" || !strings.Contains(rep.Message, tt.figures) {
				t.Errorf("run %s (%s): %q; want paused at BUDGET saying %q", rep.Status, rep.Trigger, rep.Message, tt.figures)
			}
		})
	}
}

// TestCostCountsTheDetector: the LLM threat detector's call is counted for
// the result it scanned and in the run's total, once (issue 22.6).
func TestCostCountsTheDetector(t *testing.T) {
	t.Parallel()
	worker, detector := llmtest.NewOpenAI(t), llmtest.NewOpenAI(t)
	u := agent.Usage{InputTokens: 1000, OutputTokens: 100}
	worker.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Notes\n\nFaster.", 10), Usage: u})
	detector.SetDefault(llmtest.Reply{Text: llmtest.Answer(`{"prompt_injection": false, "secret_leak": false, "malicious_patch": false, "reasons": []}`, 1), Usage: u})
	cfg, err := config.Parse("detect.yml", []byte(fmt.Sprintf(`agents:
  worker: {provider: openai, model: gpt-4.1, base-url: %q, api-key-env: WORKER_KEY}
  detector: {provider: openai, model: gpt-4.1-mini, base-url: %q, api-key-env: DETECTOR_KEY}
pipelines:
  one: { agents: [worker] }
detection: { agent: detector }
`, worker.URL, detector.URL)))
	if err != nil {
		t.Fatal(err)
	}
	sp := spec(t, cfg, "detect-1", t.TempDir())
	sp.Pipeline = "one"
	keys := map[string]string{"WORKER_KEY": worker.Key, "DETECTOR_KEY": detector.Key}
	rep, err := (&Driver{Deps: Deps{Getenv: func(k string) string { return keys[k] }}}).Run(t.Context(), sp)
	if err != nil || rep.Status != status.Completed {
		t.Fatalf("run: %v %s: %s", err, rep.Status, rep.Message)
	}
	if n := len(detector.Requests()); n != 1 {
		t.Fatalf("the detector got %d requests, want 1", n)
	}
	want := (1000*2+100*8)/1e6 + (1000*0.40+100*1.60)/1e6 // gpt-4.1's attempt, gpt-4.1-mini's scan
	worker0 := rep.Spent("worker")
	if usd, ok := worker0.Cost(); !ok || math.Abs(usd-want) > 1e-12 || worker0.Tokens() != 2200 {
		t.Errorf("worker = %+v, want $%g and 2200 tokens", worker0, want)
	}
	if total := rep.Total(); total.Tokens() != 2200 || math.Abs(total.USD-want) > 1e-12 {
		t.Errorf("run total = %+v, want the worker's", total)
	}
}
