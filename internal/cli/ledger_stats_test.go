package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/standings"
)

// statsLedger records four runs: two of codex and claude a day apart, one
// of codex alone, and one 40 days ago; and a checkpoint.
func statsLedger(t *testing.T, now time.Time) string {
	t.Helper()
	res := func(agent string, admissible bool, execMS int64, usd float64) map[string]any {
		return map[string]any{"agent": agent, "admissible": admissible, "exec_ms": execMS, "invariants": []any{"short"},
			"output_sha256": strings.Repeat("a", 64), "tokens_in": int64(1000), "tokens_out": int64(100), "cost_usd": usd}
	}
	run := func(id string, ago time.Duration, selected string, results ...any) ledger.Draft {
		return ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: "issue-" + id, Time: now.Add(-ago),
			Fields: map[string]any{"status": "completed", "selected": selected, "constraints": []any{"short"}, "results": results}}
	}
	path := filepath.Join(t.TempDir(), ".optr", "ledger.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := ledger.Append(path,
		run("old", 40*24*time.Hour, "codex", res("codex", true, 100, 1)),
		run("a", 48*time.Hour, "codex", res("codex", true, 1000, 0.01), res("claude", true, 3000, 0.03)),
		run("b", 24*time.Hour, "claude", res("codex", false, 2000, 0.02), res("claude", true, 5000, 0.05)),
		ledger.Draft{Kind: ledger.KindCheckpoint, Run: "c", Workflow: "issue-c", Time: now.Add(-time.Hour), Fields: map[string]any{"checkpoint": "x"}},
		run("c", time.Hour, "codex", res("codex", true, 4000, 0.04)),
	)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func statsCLI(t *testing.T, now time.Time, args ...string) run {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := New()
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
	c.Getenv = func(string) string { return "" }
	c.Now = func() time.Time { return now }
	code := c.Run(t.Context(), args)
	return run{code, stdout.String(), stderr.String()}
}

// TestLedgerStatsJSONAgreesWithAHandCount: codex took part in 3 runs in
// the last 30 days and won 2, claude 2 and won 1; their exec times, tokens
// and costs are summed by hand from statsLedger.
func TestLedgerStatsJSONAgreesWithAHandCount(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	path := statsLedger(t, now)
	got := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--json")
	if got.code != 0 {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	var v struct {
		Runs   int               `json:"runs"`
		Agents []standings.Agent `json:"agents"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, got.stdout)
	}
	if v.Runs != 3 || len(v.Agents) != 2 {
		t.Fatalf("runs %d, agents %+v; want 3 runs of 2 agents", v.Runs, v.Agents)
	}
	codex, claude := v.Agents[0], v.Agents[1]
	if codex.Agent != "codex" || codex.Runs != 3 || codex.Selected != 2 || codex.Admissible != 2 ||
		codex.ExecMSMedian != 2000 || codex.ExecMSP90 != 4000 || codex.Tokens != 3300 ||
		*codex.CostUSD != 0.07 || codex.PricedRuns != 3 || *codex.CostPerWinUSD != 0.035 {
		t.Errorf("codex = %+v", codex)
	}
	if claude.Agent != "claude" || claude.Runs != 2 || claude.Selected != 1 || claude.Admissible != 2 ||
		claude.ExecMSMedian != 4000 || claude.ExecMSP90 != 5000 || claude.Tokens != 2200 || *claude.CostUSD != 0.08 || *claude.CostPerWinUSD != 0.08 {
		t.Errorf("claude = %+v", claude)
	}

	week := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--since", "36h", "--by", "workflow")
	if week.code != 0 || !strings.Contains(week.stdout, "Standings of 2 runs") || strings.Contains(week.stdout, "issue-a") {
		t.Errorf("--since 36h --by workflow: exit %d\n%s%s", week.code, week.stdout, week.stderr)
	}
}

func TestLedgerStatsHTML(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	path := statsLedger(t, now)
	page := filepath.Join(t.TempDir(), "standings.html")
	got := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--html", page)
	if got.code != 0 || !strings.Contains(got.stdout, "codex") {
		t.Fatalf("exit %d\n%s%s", got.code, got.stdout, got.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Win rate by day", "Cost by day (USD)", "codex", "claude"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Self-contained: no script, and nothing to fetch (the one URL is the
	// SVG namespace, an identifier).
	html = bytes.ReplaceAll(html, []byte(`xmlns="http://www.w3.org/2000/svg"`), nil)
	for _, bad := range []string{"<script", "http:", "https:", "//", "src=", "href=", "@import", "url(", "<link", "<iframe", "<object", "<embed"} {
		if bytes.Contains(bytes.ToLower(html), []byte(bad)) {
			t.Errorf("the page holds %q: it is not self-contained", bad)
		}
	}
}

func TestLedgerStatsUsage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	path := statsLedger(t, now)
	for _, args := range [][]string{
		{"--by", "model"}, {"--since", "yesterday"}, {"--since", "-3d"}, {"--kind", "run"},
	} {
		got := statsCLI(t, now, append([]string{"ledger", "stats", "--ledger", path}, args...)...)
		if got.code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, got.code, got.stderr)
		}
	}
	if got := statsCLI(t, now, "ledger", "stats", "--ledger", filepath.Join(t.TempDir(), "none.jsonl")); got.code != ExitUsage {
		t.Errorf("a missing ledger: exit %d, want 2", got.code)
	}
	for in, want := range map[string]time.Time{
		"30d": now.Add(-30 * 24 * time.Hour), "2w": now.Add(-14 * 24 * time.Hour), "12h": now.Add(-12 * time.Hour),
		"2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
