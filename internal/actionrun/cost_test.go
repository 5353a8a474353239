package actionrun

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
	"github.com/optr-dev/optr/internal/testkit/mermaidtest"
)

// TestCopilotOpenAIAnthropicRunCosts: a run of a Copilot agent (the real
// Copilot CLI, BYOK against the fake OpenAI API), an OpenAI and an
// Anthropic agent, each output judged, reports a cost-usd output that is
// the sum of what its agents cost at the built-in prices — their attempts
// and the judge's calls on their outputs — and a tokens output that
// counts the judge's tokens too (issue 22.6).
func TestCopilotOpenAIAnthropicRunCosts(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	byok, openai, anthropic, judge := llmtest.NewOpenAI(t), llmtest.NewOpenAI(t), llmtest.NewAnthropic(t), llmtest.NewOpenAI(t)
	u := agent.Usage{InputTokens: 1000, OutputTokens: 100}
	byok.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Fix\n\nSpell it commit.", 10), Usage: u})
	openai.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Fix\n\nReplace commmit with commit.", 10), Usage: u})
	anthropic.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Fix\n\nOne t too many in commit.", 10), Usage: u})
	judge.SetDefault(llmtest.Reply{Text: llmtest.Answer(`{"pass": true, "reason": "it fixes the spelling"}`, 1), Usage: u})

	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 14, "Spelling error in the README file", "It looks like you accidently spelled 'commit' with two 't's.", "ada")
	j := newJob(t, gh, "940")
	j.File(".github/optr.yml", `agents:
  copilot: { provider: copilot, byok: openai, base-url: `+byok.URL+`, model: gpt-4.1, api-key-env: BYOK_KEY }
  codex: { provider: openai, model: gpt-4.1 }
  claude: { provider: anthropic, model: claude-sonnet-4-5 }
  judge: { provider: openai, model: gpt-4.1-mini, base-url: `+judge.URL+`, api-key-env: JUDGE_KEY }
pipelines:
  three: { agents: [copilot, codex, claude] }
constraints:
  fixes-it: { check: judge, agent: judge, criterion: the answer fixes the spelling }
`)
	for k, v := range openai.Env() {
		j.Env[k] = v
	}
	for k, v := range anthropic.Env() {
		j.Env[k] = v
	}
	j.Env["BYOK_KEY"], j.Env["JUDGE_KEY"] = byok.Key, judge.Key
	j.Env["OPTR_COPILOT_CLI"], j.Env["HOME"], j.Env["TMPDIR"] = cli, home, t.TempDir()
	j.Env["INPUT_PIPELINE"] = "three"
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(14, "optr", "ada"))
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run = %v, outputs %v\n%s", err, outs, j.log.String())
	}
	if n := len(judge.Requests()); n != 3 {
		t.Fatalf("the judge got %d requests, want one per output", n)
	}

	var run ledger.Entry
	for _, e := range committedLedger(t, gh, "optr-ledger") {
		if e.Kind == ledger.KindRun {
			run = e
		}
	}
	priced := func(in, out int64, pin, pout float64) float64 { return (float64(in)*pin + float64(out)*pout) / 1e6 }
	judged := priced(1000, 100, 0.40, 1.60) // gpt-4.1-mini
	var sum float64
	var tokens int64
	for _, r := range run.Fields["results"].([]any) {
		res := r.(map[string]any)
		name := res["agent"].(string)
		in, out := int64(num(t, res["tokens_in"])), int64(num(t, res["tokens_out"]))
		// The agent's own calls at its model's price, and the judge's.
		var want float64
		switch name {
		case "copilot", "codex": // gpt-4.1, the copilot agent's through its BYOK endpoint
			want = priced(in-1000, out-100, 2, 8) + judged
		case "claude": // claude-sonnet-4-5
			want = priced(in-1000, out-100, 3, 15) + judged
		}
		got := num(t, res["cost_usd"])
		if in <= 1000 || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: cost_usd %g for %d+%d tokens, want %g", name, got, in, out, want)
		}
		sum += got
		tokens += in + out
	}
	if cost, err := strconv.ParseFloat(outs["cost-usd"], 64); err != nil || math.Abs(cost-sum) > 1e-12 {
		t.Errorf("cost-usd = %q, want the agents' sum %g", outs["cost-usd"], sum)
	}
	if outs["tokens"] != strconv.FormatInt(tokens, 10) {
		t.Errorf("tokens = %q, want %d (the judge's included)", outs["tokens"], tokens)
	}
	if total := num(t, run.Fields["cost_usd"]); math.Abs(total-sum) > 1e-12 {
		t.Errorf("the run entry's cost_usd %g, want %g", total, sum)
	}
}

// TestUnknownCostOutputIsEmpty: a run of command agents has no known cost:
// cost-usd is empty, never 0 (issue 22.6).
func TestUnknownCostOutputIsEmpty(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 15, "Notes", "Write the release notes.", "ada")
	j := newJob(t, gh, "941")
	j.agents("fail", "# Release notes\\n\\nFaster.\\n")
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(15, "optr", "ada"))
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, j.log.String())
	}
	if v, ok := outs["cost-usd"]; !ok || v != "" {
		t.Errorf("cost-usd = %q (set %v), want set and empty", v, ok)
	}
}

// num reads a ledger number.
func num(t *testing.T, v any) float64 {
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

// TestRunOverTheDaysBudgetOnTheLedgerBranch: the budget counts the ledger
// branch's ledger, sealed segments included, not the workspace's stale
// copy: a run over the day's budget fails before the model sees a
// request, status failed and exit 1, with the figures on the issue.
func TestRunOverTheDaysBudgetOnTheLedgerBranch(t *testing.T) {
	t.Parallel()
	day := clocktest.Start.Truncate(24 * time.Hour) // the job's clock starts at noon
	spent := func(run string, at time.Duration, usd float64) ledger.Draft {
		return ledger.Draft{Kind: ledger.KindRun, Run: run, Workflow: "issue-1", Time: day.Add(at),
			Fields: map[string]any{"tokens": int64(1000), "cost_usd": usd, "results": []any{}}}
	}
	entries, err := ledger.Chain(ledger.Head{}, spent("yesterday", -2*time.Hour, 5), spent("early", 8*time.Hour, 0.40), spent("later", 9*time.Hour, 0.50))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		l, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(l))
	}
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 16, "Notes", "Write the release notes.", "ada")
	gh.Commit(repo, "optr-ledger", map[string]string{
		".optr/ledger.d/" + ledger.SegmentName(1, 2): lines[0] + lines[1],
		".optr/ledger.jsonl":                         lines[2],
	}, "earlier runs")
	openai := llmtest.NewOpenAI(t)
	j := newJob(t, gh, "942")
	j.File(".github/optr.yml", "agents:\n  codex: {provider: openai, model: gpt-4.1}\nbudget: {max-usd-per-day: 0.5}\n")
	j.File(".optr/ledger.jsonl", lines[0]) // the checkout's copy, from before today's runs
	for k, v := range openai.Env() {
		j.Env[k] = v
	}
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(16, "optr", "ada"))
	outs, err := j.run()
	var refused *UsageError
	if !errors.As(err, &refused) || outs["status"] != "failed" {
		t.Fatalf("Run = %v, outputs %v; want failed, refused before any agent started (exit 2)\n%s", err, outs, j.log.String())
	}
	figures := "budget.max-usd-per-day: $0.90 of $0.50 spent today (UTC)"
	cs := optrComments(gh, 16)
	if len(cs) != 1 || !strings.Contains(cs[0], figures) {
		t.Errorf("comments %q, want one with %q", cs, figures)
	}
	if n := len(openai.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
	if n := gh.Count("POST /repos/{owner}/{repo}/git/commits"); n != 0 {
		t.Errorf("%d commits: a refused run recorded something", n)
	}
}

// TestStepSummaryEndsWithTheStandings: every run's step summary ends with
// the agents' standings over the last 30 days of the committed ledger — a
// table and charts that Mermaid renders.
func TestStepSummaryEndsWithTheStandings(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	var summary string
	for i, issue := range []int{17, 18} {
		gh.AddIssue(repo, issue, "Notes", "Write the release notes.", "ada")
		j := newJob(t, gh, strconv.Itoa(950+i))
		j.agents("fail", "# Release notes\\n\\nFaster.\\n")
		j.Event("issues", "issues.labeled.json", actiontest.Labeled(issue, "optr", "ada"))
		if _, err := j.run(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, j.log.String())
		}
		data, err := os.ReadFile(j.Env["GITHUB_STEP_SUMMARY"])
		if err != nil {
			t.Fatal(err)
		}
		summary = string(data)
	}
	_, tail, ok := strings.Cut(summary, "### Standings over the last 30 days")
	if !ok {
		t.Fatalf("the step summary has no standings:\n%s", summary)
	}
	for _, want := range []string{"Standings of 2 runs", "| good | 2 | 100.0% |", "| sloppy | 2 | 0.0% |", "xychart-beta"} {
		if !strings.Contains(tail, want) {
			t.Errorf("the standings lack %q:\n%s", want, tail)
		}
	}
	var charts []string
	for _, block := range strings.Split(tail, "```mermaid\n")[1:] {
		charts = append(charts, strings.SplitN(block, "```", 2)[0])
	}
	if len(charts) != 1 { // command agents: no cost is known, so no cost chart
		t.Fatalf("%d charts, want the win rate's", len(charts))
	}
	mermaidtest.Check(t, charts...)
}
