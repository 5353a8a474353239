package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
	"github.com/optr-dev/optr/internal/status"
)

// topicReport is a specialist's valid report on the topic "hash chains"
// (architecture §4.9 step 5).
const topicReport = `---
report_type: research
topic: "hash chains"
findings_count: 2
recommendations_count: 1
created_date: 2026-11-23
status: complete
---
# Hash chains

## Summary
Entries carry the previous hash.

## Findings
- tampering shows
- verification is linear

## Recommendations
1. publish the head

## Sources
- https://example.com
`

// TestPreferCheaperInEveryMode: two agents whose results score the same —
// the same answer, the same checks, a clock that does not move (time to
// value, measured on another clock, is not weighed) — differ
// only in what they cost: alpha answers on gpt-4.1, beta on the cheaper
// gpt-4.1-mini. Faster (the default) tells them apart by execution time,
// then name, and takes alpha; cheaper takes beta. The choice is the same
// whether it is π* of a select run or, in a delegation, the report that
// counts for a topic both wrote (candidates: 2): every selection of a run
// weighs the cost of what it chooses among, settled before it chooses. A
// selection made before the run's spend was settled would see no cost and
// fall back to alpha.
func TestPreferCheaperInEveryMode(t *testing.T) {
	t.Parallel()
	plan := `INVOCATION_PLAN_READY: 1
[{"topic":"hash chains","focus":"why"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS`
	for _, prefer := range []string{"", config.PreferFaster, config.PreferCheaper} {
		want := "alpha"
		if prefer == config.PreferCheaper {
			want = "beta"
		}
		for _, mode := range []string{config.ModeSelect, config.ModeDelegate} {
			t.Run(fmt.Sprintf("%s/prefer=%s", mode, prefer), func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewOpenAI(t)
				srv.SetDefault(llmtest.Reply{Text: llmtest.Answer(topicReport, 10), Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}})
				y := fmt.Sprintf(`agents:
  alpha: { provider: openai, model: gpt-4.1, base-url: %[1]q, max-tokens: 1000 }
  beta: { provider: openai, model: gpt-4.1-mini, base-url: %[1]q, max-tokens: 1000 }
  planner: { provider: command, run: [sh, -c, 'cat >/dev/null; printf "%%s\n" "$PLAN"'], env: { PLAN: %[2]q } }
pipelines:
  both: { agents: [alpha, beta] }
  research: { mode: delegate, coordinator: planner, agents: [alpha, beta], candidates: 2, max-topics: 1 }
selection:
  weights: { invariants: 40, ttv: 0, exec: 20, preference: 0 }
  on-no-admissible: fail
`, srv.URL, plan)
				if prefer != "" {
					y += "  prefer: " + prefer + "\n"
				}
				cfg, err := config.Parse("prefer.yml", []byte(y))
				if err != nil {
					t.Fatal(err)
				}
				sp := spec(t, cfg, "prefer-1", t.TempDir())
				sp.Pipeline = map[string]string{config.ModeSelect: "both", config.ModeDelegate: "research"}[mode]
				frozen := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
				deps := demoDeps()
				deps.Getenv, deps.Now = srv.Getenv, func() time.Time { return frozen }
				rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Status != status.Completed {
					t.Fatalf("status %s: %s", rep.Status, rep.Message)
				}
				var got string
				switch mode {
				case config.ModeSelect:
					got = rep.Selected
				case config.ModeDelegate:
					reports, _ := lastRun(t, sp.LedgerPath).Fields["reports"].([]any)
					if len(reports) != 1 {
						t.Fatalf("reports %v, want the one topic's", reports)
					}
					got, _ = reports[0].(map[string]any)["agent"].(string)
					got, _, _ = strings.Cut(got, ".") // the topic's result name: <agent>.<topic's NNN>
				}
				if got != want {
					t.Errorf("chose %q, want %q", got, want)
				}
				// Both results are scored the same, and each has its cost.
				table := rep.Table()
				if len(table) != 2 || table[0].Score != table[1].Score {
					t.Fatalf("the results do not tie: %+v", table)
				}
				for _, row := range table {
					if row.CostUSD == nil {
						t.Errorf("%s has no cost in the table", row.Agent)
					}
				}
			})
		}
	}
}

// TestDetectionAllInADelegation: with detection.all every report a
// delegation weighs is scanned before it is weighed, as π*'s candidates
// are in a select run. alpha, which a tie gives the topic (a clock that
// does not move, then the name), writes a token into its report; with
// candidates: 2 beta's clean report counts for the topic, and with alpha
// alone the topic fails, the scan's finding its reason.
func TestDetectionAllInADelegation(t *testing.T) {
	t.Parallel()
	plan := `INVOCATION_PLAN_READY: 1
[{"topic":"hash chains","focus":"why"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS`
	leaky := strings.Replace(topicReport, "Entries carry the previous hash.", "Entries carry the previous hash; publish with _authToken="+tokentest.NPMToken(5)+".", 1)
	for _, tt := range []struct {
		name       string
		agents     string
		candidates int
		status     status.Status
		agent      string
	}{
		{"two candidates", "[alpha, beta]", 2, status.Completed, "beta"},
		{"one", "[alpha]", 1, status.Failed, "alpha"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			alpha, beta := llmtest.NewOpenAI(t), llmtest.NewOpenAI(t)
			alpha.SetDefault(llmtest.Reply{Text: llmtest.Answer(leaky, 10)})
			beta.SetDefault(llmtest.Reply{Text: llmtest.Answer(topicReport, 10)})
			cfg, err := config.Parse("all.yml", []byte(fmt.Sprintf(`agents:
  alpha: { provider: openai, model: gpt-4.1, base-url: %q, api-key-env: ALPHA_KEY, max-tokens: 1000 }
  beta: { provider: openai, model: gpt-4.1, base-url: %q, api-key-env: BETA_KEY, max-tokens: 1000 }
  planner: { provider: command, run: [sh, -c, 'cat >/dev/null; printf "%%s\n" "$PLAN"'], env: { PLAN: %q } }
pipelines:
  research: { mode: delegate, coordinator: planner, agents: %s, candidates: %d, max-topics: 1 }
selection: { on-no-admissible: fail, weights: { invariants: 40, ttv: 0, exec: 20, preference: 0 } }
detection: { all: true, on-finding: block }
`, alpha.URL, beta.URL, plan, tt.agents, tt.candidates)))
			if err != nil {
				t.Fatal(err)
			}
			sp := spec(t, cfg, "all-1", t.TempDir())
			sp.Pipeline = "research"
			deps := demoDeps()
			keys := map[string]string{"ALPHA_KEY": alpha.Key, "BETA_KEY": beta.Key}
			frozen := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			deps.Getenv, deps.Now = func(k string) string { return keys[k] }, func() time.Time { return frozen }
			rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status {
				t.Fatalf("status %s, want %s: %s", rep.Status, tt.status, rep.Message)
			}
			reports, _ := lastRun(t, sp.LedgerPath).Fields["reports"].([]any)
			if len(reports) != 1 {
				t.Fatalf("reports %v, want the one topic's", reports)
			}
			got := reports[0].(map[string]any)
			if agent, _, _ := strings.Cut(fmt.Sprint(got["agent"]), "."); agent != tt.agent {
				t.Errorf("the topic's report is %v's, want %s's", got["agent"], tt.agent)
			}
			blocked := rep.Result(fmt.Sprint(got["agent"]))
			if tt.status == status.Failed && (blocked == nil || !slices.Contains(blocked.Checks.HardFailed, DetectionConstraint)) {
				t.Errorf("the failed topic's report did not fail %s: %+v", DetectionConstraint, blocked)
			}
			for _, r := range rep.Results[1:] { // the specialists', each scanned once
				if n := countVerdicts(r.Checks.Verdicts, DetectionConstraint); n != 1 {
					t.Errorf("%s has %d %s verdicts, want 1", r.Agent, n, DetectionConstraint)
				}
			}
		})
	}
}

func countVerdicts(vs []check.Verdict, constraint string) int {
	n := 0
	for _, v := range vs {
		if v.Constraint == constraint {
			n++
		}
	}
	return n
}

// TestDelegationCandidatesWeighedAsTheirAgents: a delegation's candidates
// are results named <agent>.<NNN>, and what is known of their agents
// counts for them as it does for a select run's results: the agent
// selection.preference names first, and the agent whose pull requests
// people merged, wins a tie of scores. Looked up by the result's name,
// neither applied (no agent is named alpha.001) and the tie went to
// alpha by name.
func TestDelegationCandidatesWeighedAsTheirAgents(t *testing.T) {
	t.Parallel()
	plan := `INVOCATION_PLAN_READY: 1
[{"topic":"hash chains","focus":"why"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS`
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, selection string
		merged, closed  map[string]int
	}{
		{name: "preference", selection: "  weights: { invariants: 40, ttv: 0, exec: 0, preference: 10 }\n  preference: [beta, alpha]\n"},
		{name: "pull requests", selection: "  weights: { invariants: 40, ttv: 0, exec: 0, preference: 0 }\n",
			merged: map[string]int{"beta": 2}, closed: map[string]int{"alpha": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewOpenAI(t)
			srv.SetDefault(llmtest.Reply{Text: llmtest.Answer(topicReport, 10)})
			cfg, err := config.Parse("candidates.yml", []byte(fmt.Sprintf(`agents:
  alpha: { provider: openai, model: gpt-4.1, base-url: %[1]q, max-tokens: 1000 }
  beta: { provider: openai, model: gpt-4.1, base-url: %[1]q, max-tokens: 1000 }
  planner: { provider: command, run: [sh, -c, 'cat >/dev/null; printf "%%s\n" "$PLAN"'], env: { PLAN: %[2]q } }
pipelines:
  research: { mode: delegate, coordinator: planner, agents: [alpha, beta], candidates: 2, max-topics: 1 }
selection:
%[3]s  on-no-admissible: fail
`, srv.URL, plan, tc.selection)))
			if err != nil {
				t.Fatal(err)
			}
			sp := spec(t, cfg, "candidates-1", t.TempDir())
			sp.Pipeline = "research"
			if tc.merged != nil {
				recordsLedger(t, sp.LedgerPath, now, tc.merged, tc.closed)
			}
			deps := demoDeps()
			deps.Getenv, deps.Now = srv.Getenv, func() time.Time { return now }
			rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != status.Completed {
				t.Fatalf("status %s: %s", rep.Status, rep.Message)
			}
			reports, _ := lastRun(t, sp.LedgerPath).Fields["reports"].([]any)
			if len(reports) != 1 {
				t.Fatalf("reports %v, want the one topic's", reports)
			}
			if got, _ := reports[0].(map[string]any)["agent"].(string); got != "beta.001" {
				t.Errorf("the topic's report is %q's, want beta.001's", got)
			}
			for _, r := range rep.Results {
				if want, _, _ := strings.Cut(r.Agent, "."); r.Agent != "planner" && r.Configured != want {
					t.Errorf("result %s says it is agent %q's, want %q's", r.Agent, r.Configured, want)
				}
			}
		})
	}
}
