package escalation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// Supervise starts watching one launch of agentName: the returned context
// is cancelled with ErrRestart, ErrStuck or ErrAbort when the watcher
// decides so; progress must hear every sign of life; done ends the
// supervision once the launch's outcome (and failure, if any) was reported.
// It matches executor.Options.Supervise.
func (w *Watcher) Supervise(ctx context.Context, agentName string) (context.Context, func(agent.Progress), func()) {
	actx, cancel := context.WithCancelCause(ctx)
	s := &supervision{agent: agentName, ctx: actx, cancel: cancel}
	s.last.Store(w.now().UnixNano())
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted != nil {
		cancel(w.aborted)
		return actx, func(agent.Progress) {}, func() {}
	}
	w.sups[agentName] = s
	a := w.board.Agent(agentName)
	a.Status, a.Error, a.UpdatedAt = StatusActive, "", w.stamp()
	t := w.claimTask(agentName)
	t.Status = TaskActive
	t.Attempts = max(t.Attempts, 1)
	a.Task = t.Description
	w.saveBoard()
	progress := func(agent.Progress) { s.last.Store(w.now().UnixNano()) }
	return actx, progress, func() { s.once.Do(func() { w.finish(s) }) }
}

// claimTask returns the task agent works on: its own unfinished one, else
// the first task waiting for any agent (a reassigned task or a synthesis),
// else a new one.
func (w *Watcher) claimTask(agent string) *Task {
	if t := w.board.TaskFor(agent); t != nil && t.Status != TaskCompleted && t.Status != TaskAborted && t.Status != TaskFailed {
		return t
	}
	for _, t := range w.board.TaskQueue {
		if t.Status == TaskPending && t.AssignedTo == "" {
			t.AssignedTo = agent
			return t
		}
	}
	return w.board.AddTask("task-"+agent, w.opts.Task, TaskPending, agent)
}

// finish ends a supervision and records how the launch ended.
func (w *Watcher) finish(s *supervision) {
	w.mu.Lock()
	if w.sups[s.agent] == s {
		delete(w.sups, s.agent)
	}
	a := w.board.Agent(s.agent)
	t := w.board.TaskFor(s.agent)
	switch {
	case s.restart, s.reported:
		// The decision already set the states.
	case s.ctx.Err() != nil:
		a.Status, a.Error, a.UpdatedAt = StatusFailed, "stopped: "+context.Cause(s.ctx).Error(), w.stamp()
		if t != nil && t.Status == TaskActive {
			t.Status = TaskAborted
		}
	default:
		a.Status, a.UpdatedAt = StatusCompleted, w.stamp()
		if t != nil {
			t.Status = TaskCompleted
		}
	}
	w.saveBoard()
	w.mu.Unlock()
	s.cancel(nil)
}

// check looks for stalled agents at now.
func (w *Watcher) check(now time.Time) {
	var decided []Escalation
	w.mu.Lock()
	names := make([]string, 0, len(w.sups))
	for n := range w.sups {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		s := w.sups[name]
		idle := now.Sub(time.Unix(0, s.last.Load()))
		if s.stopping || w.aborted != nil || idle < w.opts.StuckAfter {
			continue
		}
		s.stopping = true
		a := w.board.Agent(name)
		a.Status, a.UpdatedAt = StatusStuck, w.stamp()
		if w.restarts[name] >= w.opts.MaxRestarts {
			s.stuck = true
			w.log.printf("agent %s: no progress for %s and no restart left (watcher.max-restarts %d): stopping it", name, idle.Round(time.Millisecond), w.opts.MaxRestarts)
			w.saveBoard()
			s.cancel(fmt.Errorf("%w (no progress for %s, %d restart(s) used)", ErrStuck, idle.Round(time.Millisecond), w.restarts[name]))
			continue
		}
		e := w.newEscalation(name, TriggerStuck,
			fmt.Sprintf("agent %s showed no progress (no output, frames or tokens) for %s (watcher.stuck-after %s)", name, idle.Round(time.Millisecond), w.opts.StuckAfter))
		e.Situation = Situation{FailedAgents: len(w.failed), MaxFailures: w.opts.MaxFailures, Stuck: true,
			// The stalled agent itself has a restart left: it is still at
			// work for the run, which no count of failures may abort.
			Outlook: &Outlook{Open: true, Why: fmt.Sprintf("agent %s stalled with a restart left (watcher.max-restarts %d)", name, w.opts.MaxRestarts)}}
		e.Decision = Respond(e.Situation)
		w.carryOut(&e, s)
		w.record(&e)
		decided = append(decided, e)
	}
	w.mu.Unlock()
	w.tell(decided...)
}
