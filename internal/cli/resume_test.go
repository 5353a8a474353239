package cli

import (
	"encoding/json"
	"strings"
	"testing"
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
