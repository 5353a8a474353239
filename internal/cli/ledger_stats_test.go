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
		codex.ExecMSMedian != 2000 || codex.ExecMSP90 != 4000 || codex.Tokens == nil || *codex.Tokens != 3300 ||
		*codex.CostUSD != 0.07 || codex.PricedRuns != 3 || *codex.CostPerWinUSD != 0.035 {
		t.Errorf("codex = %+v", codex)
	}
	if claude.Agent != "claude" || claude.Runs != 2 || claude.Selected != 1 || claude.Admissible != 2 ||
		claude.ExecMSMedian != 4000 || claude.ExecMSP90 != 5000 || claude.Tokens == nil || *claude.Tokens != 2200 || *claude.CostUSD != 0.08 || *claude.CostPerWinUSD != 0.08 {
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
		{"--by", "modle"}, {"--since", "yesterday"}, {"--since", "-3d"}, {"--kind", "run"},
	} {
		got := statsCLI(t, now, append([]string{"ledger", "stats", "--ledger", path}, args...)...)
		if got.code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, got.code, got.stderr)
		}
	}
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	if got := statsCLI(t, now, "ledger", "stats", "--ledger", missing); got.code != ExitUsage || !strings.Contains(got.stderr, missing) {
		t.Errorf("a missing ledger: exit %d, want 2 naming %s\n%s", got.code, missing, got.stderr)
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

// Stats verifies what it reads (issue 37, finding 11): a broken chain, a
// duplicated key or invalid UTF-8 exits 1 naming the path given and the
// line, with no figures; --no-verify shows them and says so.
func TestLedgerStatsVerifies(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ name, old, new, want string }{
		{"broken chain", `"cost_usd":0.02`, `"cost_usd":0.002`, "line 3: hash is"},
		{"duplicate key", `"selected":"claude"`, `"selected":"claude","selected":"codex"`, "line 3: the line is JSON but not in RFC 8785 canonical form"},
		{"invalid UTF-8", `"workflow":"issue-b"`, "\"workflow\":\"issue-\xfe\"", "line 3: the line is JSON but not in RFC 8785 canonical form"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "mine.jsonl") // not ledger.jsonl: the error names the path given
			data, err := os.ReadFile(statsLedger(t, now))
			if err != nil || !bytes.Contains(data, []byte(tt.old)) {
				t.Fatalf("statsLedger holds no %s (%v)", tt.old, err)
			}
			if err := os.WriteFile(path, bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			got := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--json")
			if got.code != ExitFailed || got.stdout != "" || !strings.Contains(got.stderr, "ledger "+path+": "+tt.want) || !strings.Contains(got.stderr, "--no-verify") {
				t.Fatalf("exit %d; want 1 naming %s and %q, with no figures\nstdout: %s\nstderr: %s", got.code, path, tt.want, got.stdout, got.stderr)
			}
			loose := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--no-verify", "--json")
			var v struct {
				Verified bool `json:"verified"`
				Runs     int  `json:"runs"`
			}
			if loose.code != 0 || json.Unmarshal([]byte(loose.stdout), &v) != nil || v.Verified || v.Runs != 3 || !strings.Contains(loose.stderr, "not verified (--no-verify)") {
				t.Errorf("--no-verify: exit %d, %+v\n%s%s", loose.code, v, loose.stdout, loose.stderr)
			}
			text := statsCLI(t, now, "ledger", "stats", "--ledger", path, "--no-verify")
			if !strings.Contains(text.stdout, "not verified (--no-verify)") {
				t.Errorf("the table does not say it was not verified:\n%s", text.stdout)
			}
		})
	}
	good := statsCLI(t, now, "ledger", "stats", "--ledger", statsLedger(t, now), "--by", "model", "--json")
	if good.code != 0 || !strings.Contains(good.stdout, `"verified": true`) || !strings.Contains(good.stdout, `"models": [`) {
		t.Errorf("--by model: exit %d\n%s%s", good.code, good.stdout, good.stderr)
	}
}

// optr ledger verify names the line of an outcome whose run the ledger
// does not hold (architecture §4.19), and passes one whose run it holds.
func TestLedgerVerifyOutcomeRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	path := statsLedger(t, now)
	outcome := func(run string) ledger.Draft {
		return ledger.Draft{Kind: ledger.KindOutcome, Run: run, Workflow: "issue-" + run, Time: now,
			Fields: map[string]any{"pull_request": int64(3), "outcome": "merged", "agent": "codex"}}
	}
	if _, err := ledger.Append(path, outcome("a")); err != nil {
		t.Fatal(err)
	}
	if got := statsCLI(t, now, "ledger", "verify", "--ledger", path); got.code != 0 {
		t.Fatalf("an outcome of a recorded run: exit %d\n%s", got.code, got.stderr)
	}
	if _, err := ledger.Append(path, outcome("never-ran")); err != nil {
		t.Fatal(err)
	}
	got := statsCLI(t, now, "ledger", "verify", "--ledger", path)
	if got.code != ExitFailed || !strings.Contains(got.stderr, "line 7: the outcome entry names run never-ran, but the ledger holds no run entry of that run before it") {
		t.Errorf("exit %d; want 1 naming line 7\n%s%s", got.code, got.stdout, got.stderr)
	}
}
