package escalation

import (
	"fmt"

	"github.com/optr-dev/optr/internal/markdown"
)

// Escalate records an escalation its caller decided itself — a stage that
// failed for good, whose restarts are its pipeline's own (architecture §4.10) —
// the way the watcher records its own decisions: the agent failed on the
// blackboard with its error, its task failed after attempts launches;
// escalate.md, decision.md, a watcher-log entry and, when a person must
// decide, a ceo-inbox file; then OnDecision. An empty e.ID or e.Time is
// filled in. It returns e as recorded (what was done, the inbox file).
func (w *Watcher) Escalate(e Escalation, attempts int) Escalation {
	w.mu.Lock()
	if e.ID == "" {
		e.ID = w.nextID()
	}
	if e.Time.IsZero() {
		e.Time = w.now()
	}
	msg := e.Detail
	if msg == "" {
		msg = e.Reason
	}
	msg = markdown.Truncate(msg, maxErrorText)
	if e.Agent != "" {
		w.failed[e.Agent] = true
		w.setLastErr(e.Agent, msg)
		a := w.board.Agent(e.Agent)
		a.Status, a.Error, a.UpdatedAt = StatusFailed, firstLine(msg), w.stamp()
		if t := w.board.TaskFor(e.Agent); t != nil {
			t.Status, t.Attempts = TaskFailed, max(t.Attempts, attempts)
		}
		w.history[e.Agent] = append(w.history[e.Agent], fmt.Sprintf("escalation %s (%s): %s", e.ID, e.Trigger, e.Decision.Action))
	}
	w.record(&e)
	w.saveBoard()
	w.mu.Unlock()
	w.tell(e)
	return e
}
