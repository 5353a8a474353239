package escalation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An escalation whose decision cannot be written is not consumed: the
// trigger stays for the next attempt, and nothing is archived.
func TestHandleKeepsTheTriggerWhenAWriteFails(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, map[string]string{FileEscalate: seedEscalation})
	// A directory where decision.md should go makes the write fail, also
	// for root (file modes do not stop root).
	if err := os.Mkdir(filepath.Join(dir, FileDecision), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	_, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "write "+FileDecision) {
		t.Fatalf("Handle error = %v, want one naming %s", err, FileDecision)
	}
	if got := readFile(t, filepath.Join(dir, FileEscalate)); got != seedEscalation {
		t.Errorf("escalate.md = %q, want the trigger left in place", got)
	}
	if got := listDir(t, filepath.Join(dir, DirArchive)); len(got) != 0 {
		t.Errorf("archived %v although the decision was not written", got)
	}
	if !strings.Contains(stderr.String(), "left in place") {
		t.Errorf("stderr does not say the trigger was kept:\n%s", stderr.String())
	}
}

// A restart relaunches the agent fresh: the blackboard no longer shows it
// stuck.
func TestHandleRestartClearsStuck(t *testing.T) {
	t.Parallel()
	board := `{"agents": {"worker-2": {"status": "stuck", "task": "write the report", "error": "no progress"}}}`
	esc := "# Escalation: esc-9\n\n**Reason:** worker-2 shows no progress\n**Trigger:** stuck\n"
	dir := coordDir(t, map[string]string{FileEscalate: esc, FileBlackboard: board})
	out, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if out.Escalation.Decision.Action != Restart || out.Escalation.Agent != "worker-2" {
		t.Fatalf("decision %s for %q, want restart for worker-2", out.Escalation.Decision.Action, out.Escalation.Agent)
	}
	b := ParseBlackboard([]byte(readFile(t, filepath.Join(dir, FileBlackboard))))
	a := b.Agents["worker-2"]
	if a == nil || a.Status != StatusActive || a.Error != "" {
		t.Fatalf("worker-2 on the blackboard after a restart = %+v, want active with no error", a)
	}
}
