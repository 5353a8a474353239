package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/outcome"
	"github.com/optr-dev/optr/internal/status"
)

// recordsLedger writes a ledger at path where people merged merged[a] and
// closed closed[a] of agent a's pull requests in the days before now.
func recordsLedger(t *testing.T, path string, now time.Time, merged, closed map[string]int) {
	t.Helper()
	var drafts []ledger.Draft
	n := 0
	add := func(agent, what string) {
		n++
		run := "past-" + agent + "-" + what + "-" + string(rune('a'+n))
		at := now.Add(-time.Duration(48-n) * time.Hour)
		drafts = append(drafts,
			ledger.Draft{Kind: ledger.KindRun, Run: run, Workflow: "issue-1", Time: at, Fields: map[string]any{
				"selected": agent, "status": "completed", "pull_request": int64(n), "iteration": int64(1),
				"results": []any{map[string]any{"agent": agent, "admissible": true}}}},
			outcome.Outcome{Run: run, Workflow: "issue-1", PullRequest: n, Outcome: what, Agent: agent, At: at, Source: outcome.FromAPI}.Draft(at.Add(time.Minute)))
	}
	for a, k := range merged {
		for range k {
			add(a, outcome.Merged)
		}
	}
	for a, k := range closed {
		for range k {
			add(a, outcome.Closed)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Append(path, drafts...); err != nil {
		t.Fatal(err)
	}
}

// A tie of scores goes to the agent whose pull requests people merged
// over one whose they closed (whose name comes first), and the run says
// why in numbers, in optr-selection.json and the summary; at a
// NO_ADMISSIBLE checkpoint, Proceed is not recommended for an agent
// whose changes people mostly closed.
func TestOutcomesBreakTiesAndRecommend(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	run := func(t *testing.T, cfgText string, merged, closed map[string]int) *Outcome {
		t.Helper()
		dir := t.TempDir()
		cfg, err := config.Parse("optr.yml", []byte(cfgText))
		if err != nil {
			t.Fatal(err)
		}
		lake := filepath.Join(dir, ".optr")
		spec := Spec{Config: cfg, Workflow: "w", RunID: "now-1", Intent: "go", Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
		recordsLedger(t, spec.LedgerPath, now, merged, closed)
		rep, err := (&Driver{Deps: Deps{Environ: []string{"PATH=" + os.Getenv("PATH")}, Now: func() time.Time { return now }}}).Run(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// Time does not score: the two score alike.
	const tied = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo done"] }
  beta: { provider: command, run: [sh, -c, "cat >/dev/null; echo done"] }
selection:
  weights: { invariants: 40, ttv: 0, exec: 0, preference: 10 }
`
	t.Run("a tie", func(t *testing.T) {
		t.Parallel()
		rep := run(t, tied, map[string]int{"beta": 2}, map[string]int{"alpha": 3})
		want := "beta tied with alpha at 40.00 and ranks first on what people did with their pull requests lately: beta's merged 2 of 2, alpha's merged 0 of 3"
		if rep.Selected != "beta" || rep.Selection.TieBreak != want {
			t.Fatalf("π* = %s, tie break %q; want beta, %q", rep.Selected, rep.Selection.TieBreak, want)
		}
		sel, err := os.ReadFile(rep.Path("optr-selection.json"))
		if err != nil || !strings.Contains(string(sel), `"tie_break": "`+want) {
			t.Errorf("optr-selection.json (%v):\n%s", err, sel)
		}
		if v := rep.View(); v.TieBreak != want {
			t.Errorf("the view's tie break %q", v.TieBreak)
		}
	})
	t.Run("no history: the name", func(t *testing.T) {
		t.Parallel()
		if rep := run(t, tied, nil, nil); rep.Selected != "alpha" || rep.Selection.TieBreak != "" {
			t.Errorf("π* = %s (%q); want alpha by name", rep.Selected, rep.Selection.TieBreak)
		}
	})
	t.Run("a checkpoint", func(t *testing.T) {
		t.Parallel()
		rep := run(t, `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo done"] }
constraints:
  never: { check: contains, value: "no such text" }
selection: { on-no-admissible: checkpoint }
`, map[string]int{"alpha": 1}, map[string]int{"alpha": 3})
		if rep.Status != status.Paused || rep.Trigger != checkpoint.TriggerNoAdmissible {
			t.Fatalf("status %s %s: %s", rep.Status, rep.Trigger, rep.Message)
		}
		cp, err := checkpoint.Load(datalake.Open(rep.Spec.Datalake).CheckpointPath(rep.CheckpointID))
		if err != nil {
			t.Fatal(err)
		}
		if cp.Recommended != 2 || cp.Recommendation != "Skip — alpha's pull requests: 1 of 4 merged lately" {
			t.Errorf("recommended %d: %q; want Skip, in numbers", cp.Recommended, cp.Recommendation)
		}
	})
}
