package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// `optr run` of the demo's decide-now pauses at a HICCUP checkpoint when
// its execute stage crashes (no restarts); `optr resume --choose 1`
// retries execute from its saved input — it succeeds the second time —
// and runs mind: the run completes, recorded after the decision.
func TestResumeProceedRetriesTheFailedStage(t *testing.T) {
	demoWorkspace(t)
	r := optr(t, "run", "--config", "testdata/demo/stages.yml", "--pipeline", "decide-now", "--intent", "Should we split the release?", "--run-id", "h1")
	if r.code != ExitPaused || !strings.Contains(r.stdout, "1  Proceed (recommended): retry stage execute from its input") {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	done := optr(t, "resume", "--config", "testdata/demo/stages.yml", "--checkpoint", "cp-h1-1", "--choose", "1", "--json")
	var out Outcome
	if err := json.Unmarshal([]byte(done.stdout), &out); err != nil || done.code != 0 || out.Status != "completed" || out.Selected != "mind" {
		t.Fatalf("resume: exit %d %v %+v\n%s", done.code, err, out, done.stderr)
	}
	var kinds []string
	for _, e := range ledgerOf(t, ".optr") {
		kinds = append(kinds, e["kind"].(string))
	}
	if got := strings.Join(kinds, ","); got != "escalation,checkpoint,decision,run" {
		t.Errorf("ledger kinds %s", got)
	}
}

// `optr resume` on a checkpoint already decided says so in the terminal's
// words, with the CLI's next step (a new `optr run`), not the issue
// comment's Markdown and `/optr run` (issue 22 item 10).
func TestResumeDecidedCheckpointSaysTheCLIStep(t *testing.T) {
	demoWorkspace(t)
	if r := optr(t, "run", "--config", "testdata/demo/stages.yml", "--pipeline", "decide-now", "--intent", "Should we split the release?", "--run-id", "h2"); r.code != ExitPaused {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if r := optr(t, "resume", "--config", "testdata/demo/stages.yml", "--checkpoint", "cp-h2-1", "--choose", "2"); r.code != 0 {
		t.Fatalf("first resume: exit %d\n%s", r.code, r.stderr)
	}
	again := optr(t, "resume", "--config", "testdata/demo/stages.yml", "--checkpoint", "cp-h2-1", "--choose", "1")
	if again.code != ExitUsage {
		t.Errorf("second resume: exit %d, want %d", again.code, ExitUsage)
	}
	for _, want := range []string{"cp-h2-1 was already decided", "option 2", "Skip", "optr run"} {
		if !strings.Contains(again.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, again.stderr)
		}
	}
	for _, comment := range []string{"/optr run", "**", "`"} {
		if strings.Contains(again.stderr, comment) {
			t.Errorf("stderr has the issue comment's %q:\n%s", comment, again.stderr)
		}
	}
}

// Proceed at a stages HICCUP starts agents again, so the day's budget is
// checked again: spent since the run paused, the retry is refused with the
// figures, nothing is recorded and the run stays paused; with the budget
// raised, the same answer carries it on.
func TestResumeProceedChecksTheDaysBudgetAgain(t *testing.T) {
	ws := demoWorkspace(t)
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	at := func(args ...string) run {
		t.Helper()
		var stdout, stderr bytes.Buffer
		c := New()
		c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
		c.Getenv = func(string) string { return "" }
		c.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
		c.IsTerminal = func(any) bool { return false }
		c.Now = func() time.Time { return now }
		code := c.Run(t.Context(), args)
		return run{code, stdout.String(), stderr.String()}
	}
	stages, err := os.ReadFile("testdata/demo/stages.yml")
	if err != nil {
		t.Fatal(err)
	}
	budgeted := func(tokens int) string {
		name := filepath.Join(ws, fmt.Sprintf("stages-%d.yml", tokens))
		if err := os.WriteFile(name, fmt.Appendf(stages, "\nbudget:\n  max-tokens-per-day: %d\n", tokens), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	if r := at("run", "--config", budgeted(5000), "--pipeline", "decide-now", "--intent", "Should we split the release?", "--run-id", "h3"); r.code != ExitPaused {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	// Another run spends the day's budget while h3 waits.
	if _, err := ledger.Append(filepath.Join(".optr", "ledger.jsonl"), ledger.Draft{Kind: ledger.KindRun, Run: "other", Workflow: "local", Time: now,
		Fields: map[string]any{"tokens": int64(6000), "results": []any{}}}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(".optr", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	refused := at("resume", "--config", budgeted(5000), "--checkpoint", "cp-h3-1", "--choose", "1")
	figures := "budget.max-tokens-per-day: 6000 tokens of 5000 tokens spent today (UTC)"
	if refused.code != ExitUsage || !strings.Contains(refused.stderr, figures) { // refused before any agent started
		t.Fatalf("resume over the budget: exit %d, want %d saying %q\n%s", refused.code, ExitUsage, figures, refused.stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(".optr", "ledger.jsonl")); !bytes.Equal(before, after) {
		t.Errorf("the refused resume changed the ledger:\n%s", after[len(before):])
	}
	done := at("resume", "--config", budgeted(100_000), "--checkpoint", "cp-h3-1", "--choose", "1", "--json")
	var out Outcome
	if err := json.Unmarshal([]byte(done.stdout), &out); err != nil || done.code != 0 || out.Status != "completed" {
		t.Fatalf("resume within the budget: exit %d %v %+v\n%s", done.code, err, out, done.stderr)
	}
}
