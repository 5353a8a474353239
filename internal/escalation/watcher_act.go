package escalation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// newEscalation starts an escalation about agentName. Callers hold w.mu.
func (w *Watcher) newEscalation(agentName string, trigger Trigger, reason string) Escalation {
	e := Escalation{
		ID: w.nextID(), Time: w.now(), Agent: agentName,
		Trigger: trigger, Reason: reason,
	}
	if n := w.restarts[agentName]; n > 0 {
		e.Tried = append(e.Tried, fmt.Sprintf("restarted %d time(s) (watcher.max-restarts %d)", n, w.opts.MaxRestarts))
	}
	e.Tried = append(e.Tried, w.history[agentName]...)
	e.LastErrors = slices.Clone(w.lastErrs)
	return e
}

// nextID is the next escalation id of the run: <run>-e1, <run>-e2, …
// Callers hold w.mu.
func (w *Watcher) nextID() string {
	w.seq++
	prefix := safeID(w.opts.RunID)
	if prefix == "" {
		prefix = "run"
	}
	return fmt.Sprintf("%s-e%d", prefix, w.seq)
}

// carryOut does the watcher's part of e's decision. Callers hold w.mu.
func (w *Watcher) carryOut(e *Escalation, s *supervision) {
	switch e.Decision.Action {
	case Restart:
		w.restarts[e.Agent]++
		delete(w.failed, e.Agent) // it gets another chance
		n := w.restarts[e.Agent]
		if s != nil && !s.reported && s.ctx.Err() == nil { // stalled, still running
			s.restart = true
			s.cancel(fmt.Errorf("%w (restart %d of %d)", ErrRestart, n, w.opts.MaxRestarts))
			e.Actions = append(e.Actions, fmt.Sprintf("stopped agent %s and everything it started", e.Agent))
		}
		e.Actions = append(e.Actions, fmt.Sprintf("agent %s is relaunched with fresh state (restart %d of %d, watcher.max-restarts)", e.Agent, n, w.opts.MaxRestarts))
	case Abort:
		w.aborted = &AbortError{Reason: e.Decision.Reason}
		n := 0
		for _, other := range w.sups {
			if !other.reported && other.ctx.Err() == nil {
				other.stopping = true
				other.cancel(w.aborted)
				n++
			}
		}
		e.Actions = append(e.Actions, fmt.Sprintf("stopped %d running agent(s); agents not started yet will not start; the run is marked failed", n))
	case Reassign:
		e.Actions = append(e.Actions, fmt.Sprintf("the task of %s goes to a spare agent that is not busy, when there is one", e.Agent))
	case Synthesize:
		e.Actions = append(e.Actions, fmt.Sprintf("the partial output of %s goes to the synthesis step", e.Agent))
	case EscalateCEO:
		e.Actions = append(e.Actions, "an escalation comment asks a person to decide")
	}
	w.history[e.Agent] = append(w.history[e.Agent], fmt.Sprintf("escalation %s (%s): %s", e.ID, e.Trigger, e.Decision.Action))
}

// record writes escalate.md, carries the decision out on the blackboard,
// and concludes it (decision.md, ceo-inbox, blackboard, log, archive).
// Write failures are logged: a disk problem must not stop the run. Callers
// hold w.mu.
func (w *Watcher) record(e *Escalation) {
	if err := w.co.writeTrigger(e); err != nil {
		w.log.errorf("escalation %s: %v", e.ID, err)
	}
	var sources []string
	if e.Situation.PartialOutputs && e.Agent != "" {
		sources = []string{e.Agent}
	}
	applyToBoard(w.board, e, sources)
	_ = w.co.conclude(e, w.board) // conclude logs each failure
	w.decisions = append(w.decisions, *e)
}

// tell hands decisions to OnDecision. Callers do not hold w.mu.
func (w *Watcher) tell(es ...Escalation) {
	if w.opts.OnDecision == nil {
		return
	}
	for _, e := range es {
		w.opts.OnDecision(e)
	}
}

// setLastErr records agent's last error. Callers hold w.mu.
func (w *Watcher) setLastErr(agentName, msg string) {
	for i := range w.lastErrs {
		if w.lastErrs[i].Agent == agentName {
			w.lastErrs[i].Error = msg
			return
		}
	}
	w.lastErrs = append(w.lastErrs, AgentError{Agent: agentName, Error: msg})
}

// saveBoard tells the board writer the blackboard changed. Callers hold
// w.mu.
func (w *Watcher) saveBoard() { w.bw.touch() }

// encodeBoard snapshots the blackboard for the board writer.
func (w *Watcher) encodeBoard() ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.board.Encode(w.co.path(FileBlackboard), w.now())
}

func (w *Watcher) stamp() string { return w.now().UTC().Format(time.RFC3339) }

// agentReason is the Reason of the *agent.Error in err, lower-cased.
func agentReason(err error) string {
	var ae *agent.Error
	if errors.As(err, &ae) {
		return strings.ToLower(ae.Reason)
	}
	return ""
}

// isTimeout reports whether err is an agent running out of time.
func isTimeout(err error) bool {
	return agentReason(err) == "timeout" || errors.Is(err, context.DeadlineExceeded)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
