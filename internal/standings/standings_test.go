package standings

import (
	"bytes"
	"encoding/json"
	htmltemplate "html/template"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/outcome"
	"github.com/optr-dev/optr/internal/testkit/golden"
	"github.com/optr-dev/optr/internal/testkit/mermaidtest"
)

var (
	until = time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	since = until.Add(-30 * 24 * time.Hour)
)

const outputX = "1f2f3f4f5f6f7f8f9f0f1f2f3f4f5f6f7f8f9f0f1f2f3f4f5f6f7f8f9f0f1f2f"

func result(agent string, admissible bool, execMS int64, invariants []string, sha string, in, out int64, usd float64) map[string]any {
	inv := make([]any, len(invariants))
	for i, s := range invariants {
		inv[i] = s
	}
	r := map[string]any{"agent": agent, "admissible": admissible, "exec_ms": execMS, "invariants": inv,
		"output_sha256": sha, "tokens_in": in, "tokens_out": out, "status": "succeeded", "ttv_ms": execMS, "score": 50.0, "attempts": int64(1)}
	if usd >= 0 {
		r["cost_usd"] = usd
	}
	if in < 0 { // a command agent outside the gateway: nothing known
		r["tokens_in"], r["tokens_out"], r["cost_usd"], r["tokens_unknown"], r["cost_unknown"] = nil, nil, nil, true, true
	}
	return r
}

func runDraft(id, workflow string, at time.Time, status, selected string, constraints []any, results ...any) ledger.Draft {
	return ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: workflow, Time: at, Fields: map[string]any{
		"status": status, "selected": selected, "constraints": constraints, "results": results, "mode": "select",
	}}
}

// models names the model of each agent's results.
var models = map[string]string{"codex": "gpt-5", "claude": "claude-sonnet-4-5"}

// modelled gives each result of d the model its agent answers with.
func modelled(d ledger.Draft) ledger.Draft {
	for _, r := range d.Fields["results"].([]any) {
		r := r.(map[string]any)
		if m := models[r["agent"].(string)]; m != "" {
			r["model"] = m
		}
	}
	return d
}

// opened marks run d as the one that opened pull request n.
func opened(d ledger.Draft, n int) ledger.Draft {
	d.Fields["pull_request"], d.Fields["iteration"] = int64(n), int64(1)
	return d
}

// outcomeDraft is an outcome of the pull request run opened, recorded at.
func outcomeDraft(run string, pr int, what, agent string, at time.Time, open time.Duration, usd float64) ledger.Draft {
	o := outcome.Outcome{Run: run, Workflow: "issue-1", PullRequest: pr, Outcome: what, Agent: agent, Model: models[agent],
		By: "maintainer", ByType: "User", At: at, Elapsed: open, Iterations: 1, Source: outcome.FromEvent}
	if usd >= 0 {
		o.CostUSD = &usd
	}
	if what == outcome.Reverted {
		o.How = outcome.ByMessage
	}
	return o.Draft(at)
}

// seeded is a ledger whose figures are counted by hand in TestReadCounts.
// Its outcomes: r0's pull request (opened before the window) merged after
// 4h at no known cost, and reverted; r1's merged after 2h for $0.045,
// recorded twice; r3's closed unmerged.
func seeded(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	_, err := ledger.Append(path,
		modelled(opened(runDraft("r0", "issue-1", time.Date(2026, 10, 20, 9, 0, 0, 0, time.UTC), "completed", "codex", []any{"no-todo"},
			result("codex", true, 1, []string{"no-todo"}, outputX, 1, 1, 1)), 4)), // before the window
		modelled(opened(runDraft("r1", "issue-1", day(20, 9), "completed", "codex", []any{"no-todo", "short"},
			result("codex", true, 1000, []string{"no-todo", "short"}, outputX, 100, 10, 0.01),
			result("claude", false, 3000, []string{"short"}, outputX, 200, 20, 0.03),
			result("script", true, 500, []string{"no-todo", "short"}, outputX, -1, -1, -1)), 5)),
		outcomeDraft("r1", 5, outcome.Merged, "codex", day(21, 8), 2*time.Hour, 0.045),
		outcomeDraft("r1", 5, outcome.Merged, "codex", day(21, 9), 2*time.Hour, 0.045),
		modelled(runDraft("r2", "issue-1", day(21, 10), "failed", "", []any{"no-todo"},
			result("codex", false, 2000, nil, emptyOutput, 50, 0, 0.005),
			result("claude", false, 4000, nil, outputX, 300, 30, 0.04))),
		outcomeDraft("r0", 4, outcome.Merged, "codex", day(22, 8), 4*time.Hour, -1),
		outcomeDraft("r0", 4, outcome.Reverted, "codex", day(23, 8), 24*time.Hour, -1),
		ledger.Draft{Kind: ledger.KindCheckpoint, Run: "r4", Workflow: "issue-3", Time: day(24, 10), Fields: map[string]any{"checkpoint": "c"}},
		modelled(opened(runDraft("r3", "issue-2", day(24, 11), "completed", "claude", []any{"short"},
			result("claude", true, 5000, []string{"short"}, outputX, 100, 10, 0.02),
			result("codex", true, 6000, []string{"short"}, outputX, 100, 10, -1)), 6)),
		outcomeDraft("r3", 6, outcome.Closed, "claude", day(25, 10), time.Hour, 0.02),
	)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path string) *Standings {
	t.Helper()
	s, err := Read(t.Context(), ledger.Local(path), since, until)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func f(v float64) *float64 { return &v }

func i64(v int64) *int64 { return &v }

// TestReadCounts: the figures are the ones counted by hand over the
// seeded ledger (see seeded).
func TestReadCounts(t *testing.T) {
	t.Parallel()
	s := read(t, seeded(t))
	if s.Runs != 3 || s.Outcomes != 3 || !s.Verified {
		t.Errorf("Runs = %d, want 3 (r0 is before the window, r4 only paused); Outcomes = %d, want 3 (r1's merge once); verified %v", s.Runs, s.Outcomes, s.Verified)
	}
	// Ranked by merge rate: codex's changes merged (2 of 2), claude's
	// closed (0 of 1), script has none.
	want := []Agent{
		{Agent: "codex", Runs: 3, Selected: 1, WinRate: 1.0 / 3, Admissible: 2, AdmissibleRate: 2.0 / 3,
			ExecMSMedian: 2000, ExecMSP90: 6000, Tokens: i64(270), MeteredRuns: 3, CostUSD: f(0.015), PricedRuns: 2, CostPerWinUSD: f(0.015),
			PullRequests: 1, Merged: 2, MergeRate: f(1), MedianTimeToMergeMS: i64(3 * 3600 * 1000), Reverted: 1, CostPerMergedUSD: f(0.045), PricedMerged: 1},
		{Agent: "claude", Runs: 3, Selected: 1, WinRate: 1.0 / 3, Admissible: 1, AdmissibleRate: 1.0 / 3,
			ExecMSMedian: 4000, ExecMSP90: 5000, Tokens: i64(660), MeteredRuns: 3, CostUSD: f(0.09), PricedRuns: 3, CostPerWinUSD: f(0.09),
			PullRequests: 1, Closed: 1, MergeRate: f(0)},
		{Agent: "script", Runs: 1, Admissible: 1, AdmissibleRate: 1, ExecMSMedian: 500, ExecMSP90: 500},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })
	if diff := cmp.Diff(want, s.Agents, approx); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	wantM := []Agent{
		{Model: "gpt-5", Runs: 3, Selected: 1, WinRate: 1.0 / 3, Admissible: 2, AdmissibleRate: 2.0 / 3,
			ExecMSMedian: 2000, ExecMSP90: 6000, Tokens: i64(270), MeteredRuns: 3, CostUSD: f(0.015), PricedRuns: 2, CostPerWinUSD: f(0.015),
			PullRequests: 1, Merged: 2, MergeRate: f(1), MedianTimeToMergeMS: i64(3 * 3600 * 1000), Reverted: 1, CostPerMergedUSD: f(0.045), PricedMerged: 1},
		{Model: "claude-sonnet-4-5", Runs: 3, Selected: 1, WinRate: 1.0 / 3, Admissible: 1, AdmissibleRate: 1.0 / 3,
			ExecMSMedian: 4000, ExecMSP90: 5000, Tokens: i64(660), MeteredRuns: 3, CostUSD: f(0.09), PricedRuns: 3, CostPerWinUSD: f(0.09),
			PullRequests: 1, Closed: 1, MergeRate: f(0)},
		{Model: "unknown", Runs: 1, Admissible: 1, AdmissibleRate: 1, ExecMSMedian: 500, ExecMSP90: 500},
	}
	if diff := cmp.Diff(wantM, s.Models, approx); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	wantC := []Constraint{{Constraint: "no-todo", Checked: 4, Passed: 2, PassRate: 0.5}, {Constraint: "short", Checked: 5, Passed: 5, PassRate: 1}}
	if diff := cmp.Diff(wantC, s.Constraints); diff != "" {
		t.Errorf("constraints (-want +got):\n%s", diff)
	}
	wantW := []Workflow{{Workflow: "issue-1", Runs: 2, Outcomes: map[string]int{"completed": 1, "failed": 1}},
		{Workflow: "issue-2", Runs: 1, Outcomes: map[string]int{"completed": 1}}}
	if diff := cmp.Diff(wantW, s.Workflows); diff != "" {
		t.Errorf("workflows (-want +got):\n%s", diff)
	}
	var dates []string
	for _, d := range s.Days {
		dates = append(dates, d.Date)
	}
	if diff := cmp.Diff([]string{"2026-11-20", "2026-11-21", "2026-11-24"}, dates); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		xs          []int64
		median, p90 int64
	}{
		{nil, 0, 0}, {[]int64{7}, 7, 7}, {[]int64{1, 3}, 2, 3},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 9}, {[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 6, 10},
	} {
		if m, p := median(tt.xs), nearestRank(tt.xs, 0.9); m != tt.median || p != tt.p90 {
			t.Errorf("%v: median %d, p90 %d; want %d, %d", tt.xs, m, p, tt.median, tt.p90)
		}
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	s := read(t, seeded(t))
	for _, by := range Bys {
		var b bytes.Buffer
		if err := Text(&b, s, by); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "text_"+by+".golden", b.String())
		js, err := json.MarshalIndent(View(s, by), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "json_"+by+".golden", string(js)+"\n")
	}
	golden.Check(t, "summary.golden", Markdown(s, "the last 30 days"))
	page, err := HTML(s)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "page.golden.html", string(page))
}

func TestEmptyWindow(t *testing.T) {
	t.Parallel()
	s := read(t, filepath.Join(t.TempDir(), "ledger.jsonl"))
	if got := Markdown(s, "the last 30 days"); strings.Contains(got, "mermaid") || !strings.Contains(got, "No run was recorded") {
		t.Errorf("empty summary:\n%s", got)
	}
	js, _ := json.Marshal(View(s, ByAgent))
	if !strings.Contains(string(js), `"agents":[]`) {
		t.Errorf("empty JSON: %s", js)
	}
	if page, err := HTML(s); err != nil || !strings.Contains(string(page), "No run was recorded") {
		t.Errorf("empty page (%v):\n%s", err, page)
	}
}

// TestChartsRenderInMermaid: the summary's charts parse in Mermaid, names
// that mean something to Mermaid or Markdown included.
func TestChartsRenderInMermaid(t *testing.T) {
	t.Parallel()
	s := read(t, seeded(t))
	agents := append(s.Agents, Agent{Agent: "x\"] --> evil[\"y\n```", Runs: 1, WinRate: 1, CostUSD: f(0.5)},
		Agent{Agent: "%%{init: {}}%% ; # [a, b] → ünïcode", Runs: 2, WinRate: 0.5, CostUSD: f(0)})
	for _, a := range agents {
		if c := chartText(a.Agent); strings.ContainsAny(c, "\"[]{};#%`\n") {
			t.Errorf("chartText(%q) = %q keeps a character Mermaid reads", a.Agent, c)
		}
	}
	var diagrams []string
	for _, block := range strings.Split(Markdown(s, "the last 30 days"), "```mermaid\n")[1:] {
		diagrams = append(diagrams, strings.SplitN(block, "```", 2)[0])
	}
	if len(diagrams) != 4 {
		t.Fatalf("%d charts in the summary, want 4: merge rate, cost per merged change, win rate, cost", len(diagrams))
	}
	agents[len(agents)-1].MergeRate, agents[len(agents)-1].CostPerMergedUSD = f(0.25), f(1.5)
	mermaidtest.Check(t, append(diagrams, WinRateChart(agents, "a week"), CostChart(agents, "a week"),
		MergeRateChart(agents, "a week"), CostPerMergedChart(agents, "a week"))...)
}

// The page escapes what the ledger recorded exactly as html/template
// would, in an element's text and in a quoted attribute.
func TestEscAsTemplate(t *testing.T) {
	t.Parallel()
	tmpl := htmltemplate.Must(htmltemplate.New("x").Parse(`<td>{{.}}</td><text aria-label="{{.}}">`))
	for _, s := range []string{"plain", `<script>alert("x")</script>`, "a+b & c's", "nul\x00byte", "ünïcode ✓", "'\"<>&+"} {
		var want strings.Builder
		if err := tmpl.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		if got := "<td>" + esc(s) + `</td><text aria-label="` + esc(s) + `">`; got != want.String() {
			t.Errorf("esc(%q):\n got %s\nwant %s", s, got, want.String())
		}
	}
}
