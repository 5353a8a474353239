package executor

import (
	"fmt"
	"slices"

	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/status"
)

// Standing is where a fan-out stands when an agent fails: what
// Options.Outlook weighs to say whether the run can still succeed, and so
// whether the watcher may abort it (escalation.Outlook).
type Standing struct {
	// Tasks holds where each task stands, in task order: queued (not
	// started yet, MaxParallel), running (its agent, or a spare that took
	// the task over, is at work), succeeded (done with an output, which may
	// be admissible) or failed (done without one; the failing task's).
	Tasks []status.Status
	// Failing is the index of the task whose agent failed; -1 for the
	// synthesis step.
	Failing int
	// Spares counts the spares free to take the failing task over.
	Spares int
	// Synthesis is true when a synthesis step is still to run on partial
	// outputs (this failure's among them, when it left one).
	Synthesis bool
}

// Count returns how many tasks stand at st.
func (s Standing) Count(st status.Status) int {
	n := 0
	for _, t := range s.Tasks {
		if t == st {
			n++
		}
	}
	return n
}

// SelectOutlook is the outlook of a select fan-out, the default: every
// agent's result could be π*, so the run can still succeed while an agent
// is running or queued, a spare is free to take the failed task over, a
// synthesis step is to come, or a result is already in.
func SelectOutlook(s Standing) escalation.Outlook {
	running, queued, succeeded := s.Count(status.Running), s.Count(status.Queued), s.Count(status.Succeeded)
	why := fmt.Sprintf("%d of %d agents failed, %d running, %d queued, %d succeeded, %d spare(s) free to take the task over",
		s.Count(status.Failed), len(s.Tasks), running, queued, succeeded, s.Spares)
	if s.Synthesis {
		why += ", a synthesis step to come"
	}
	open := running+queued+succeeded+s.Spares > 0 || s.Synthesis
	if !open {
		why += ": no agent left can produce an admissible result"
	}
	return escalation.Outlook{Open: open, Why: why}
}

// outlook is the outlook of the run when the agent of task at (-1: the
// synthesis step), marked failed, failed, having tried the agents tried;
// partial is true when it left partial output.
func (x *execution) outlook(at int, tried []string, partial bool) escalation.Outlook {
	x.mu.Lock()
	s := Standing{Tasks: slices.Clone(x.states), Failing: at}
	if at >= 0 {
		for _, sp := range x.opts.Spares {
			if n := sp.Agent.Name(); x.running[n] == 0 && !slices.Contains(tried, n) {
				s.Spares++
			}
		}
		s.Synthesis = x.opts.Synthesizer != nil && (partial || x.synthesisDueLocked())
	}
	x.mu.Unlock()
	judge := x.opts.Outlook
	if judge == nil {
		judge = SelectOutlook
	}
	return judge(s)
}

// synthesisDueLocked reports whether a finished result's partial output
// was sent to the synthesis step. Callers hold x.mu.
func (x *execution) synthesisDueLocked() bool {
	for _, r := range x.results {
		if r != nil && r.Decision == string(escalation.Synthesize) && r.Partial() != "" {
			return true
		}
	}
	for _, rs := range x.replaced {
		for _, r := range rs {
			if r.Decision == string(escalation.Synthesize) && r.Partial() != "" {
				return true
			}
		}
	}
	return false
}

// setState records where task i stands (nothing for the synthesis
// step, -1).
func (x *execution) setState(i int, st status.Status) {
	if i < 0 {
		return
	}
	x.mu.Lock()
	x.states[i] = st
	x.mu.Unlock()
}
