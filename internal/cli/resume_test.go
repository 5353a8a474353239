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
