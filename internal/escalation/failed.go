package escalation

import (
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/markdown"
)

// Failed reports that an agent's launch ended in failure and returns the
// escalation and its decision, which the caller carries out (restart:
// relaunch; reassign: a spare takes the task; synthesize: the partial
// output goes to the synthesis step; abort: stop everything).
func (w *Watcher) Failed(f Failure) Escalation {
	w.mu.Lock()
	if w.aborted != nil {
		w.mu.Unlock()
		return Escalation{Agent: f.Agent, Time: w.now(), Decision: Decision{Abort, "the run is already aborted"}}
	}
	s := w.sups[f.Agent]
	stuck := errors.Is(f.Err, ErrStuck) || s != nil && s.stuck
	if s != nil {
		s.reported = true
	}
	msg := "failed"
	if f.Err != nil {
		msg = markdown.Truncate(f.Err.Error(), maxErrorText)
	}
	w.failed[f.Agent] = true
	w.setLastErr(f.Agent, msg)
	reason := agentReason(f.Err)
	sit := Situation{
		FailedAgents: len(w.failed), MaxFailures: w.opts.MaxFailures,
		Conflict: reason == "conflict", Deadlock: reason == "deadlock",
		Timeout: !stuck && isTimeout(f.Err), Stuck: stuck,
		RestartsExhausted: w.restarts[f.Agent] >= w.opts.MaxRestarts,
		Error:             true, PartialOutputs: f.Partial,
	}
	if f.Outlook != nil {
		o := f.Outlook()
		sit.Outlook = &o
	}
	trigger := TriggerError
	switch {
	case sit.Conflict:
		trigger = TriggerConflict
	case sit.Deadlock:
		trigger = TriggerDeadlock
	case sit.Stuck:
		trigger = TriggerStuck
	case sit.Timeout:
		trigger = TriggerTimeout
	}
	e := w.newEscalation(f.Agent, trigger, fmt.Sprintf("agent %s failed: %s", f.Agent, firstLine(msg)))
	e.Detail = msg
	if f.Attempts > 0 {
		e.Tried = append(e.Tried, fmt.Sprintf("%d attempt(s) under the recovery policy (recovery.attempts, recovery.max-alternatives)", f.Attempts))
	}
	if f.Replaces != "" {
		e.Tried = append(e.Tried, fmt.Sprintf("%s had taken over the task of %s", f.Agent, f.Replaces))
	}
	e.Situation = sit
	e.Decision = Respond(sit)
	a := w.board.Agent(f.Agent)
	a.Status, a.Error, a.UpdatedAt = StatusFailed, firstLine(msg), w.stamp()
	if s != nil && e.Decision.Action == Restart {
		s.restart = true
	}
	w.carryOut(&e, s)
	w.record(&e)
	w.mu.Unlock()
	w.tell(e)
	return e
}
