package escalation

import "fmt"

// Action is one of the five decisions the handler can take.
type Action string

// The five decisions (architecture §4.7).
const (
	// Abort stops the remaining agents and marks the run failed.
	Abort Action = "abort"
	// EscalateCEO hands the problem to a human: an escalation comment and a
	// ceo-inbox file.
	EscalateCEO Action = "escalate_ceo"
	// Restart kills the agent and relaunches it with fresh state.
	Restart Action = "restart"
	// Synthesize hands the partial outputs to a synthesis step.
	Synthesize Action = "synthesize"
	// Reassign gives the agent's task to another configured agent.
	Reassign Action = "reassign"
)

// DefaultMaxFailures is watcher.max-failures when it is not set: this many
// failed agents abort the run.
const DefaultMaxFailures = 3

// Situation is what the handler knows when it decides.
type Situation struct {
	// FailedAgents counts the agents that have failed, the one this
	// escalation is about included.
	FailedAgents int `json:"failed_agents"`
	// MaxFailures is watcher.max-failures (DefaultMaxFailures when ≤ 0).
	MaxFailures int `json:"max_failures"`
	// Conflict and Deadlock: agents contradict or block each other.
	Conflict bool `json:"conflict,omitempty"`
	Deadlock bool `json:"deadlock,omitempty"`
	// Timeout and Stuck: the agent ran out of time or showed no progress.
	Timeout bool `json:"timeout,omitempty"`
	Stuck   bool `json:"stuck,omitempty"`
	// RestartsExhausted: the agent was already restarted watcher.max-restarts
	// times, so a timeout or a stall no longer earns a restart.
	RestartsExhausted bool `json:"restarts_exhausted,omitempty"`
	// Error: the agent failed.
	Error bool `json:"error,omitempty"`
	// PartialOutputs: the agent left output worth keeping.
	PartialOutputs bool `json:"partial_outputs,omitempty"`
	// Outlook is what the rest of the run can still do, when the caller
	// knows it (the in-run watcher); nil in the standalone handler.
	Outlook *Outlook `json:"outlook,omitempty"`
}

// Outlook is what the rest of a run can still do when an agent fails. The
// abort rule stops only work that can no longer change the outcome: in a
// run, failed agents abort it only when nothing left can make it succeed.
type Outlook struct {
	// Open is true while the run can still succeed: in select, an agent
	// still running or queued, a spare free to take a failed task over, a
	// synthesis step with partial outputs, or a result already in could
	// be admissible; in delegate, the threshold can still be reached.
	Open bool `json:"open"`
	// Why says where the run stands, in numbers ("2 of 5 agents are still
	// running, 0 queued, 0 spares free, 0 succeeded").
	Why string `json:"why"`
}

// Decision is the handler's answer to a Situation.
type Decision struct {
	// Action is what is done.
	Action Action `json:"action"`
	// Reason says which rule of the decision table matched, in words.
	Reason string `json:"reason"`
}

// Respond applies the decision table; the first rule that matches wins:
//
//  1. FailedAgents ≥ MaxFailures, and the run
//     can no longer succeed (Outlook)       → abort
//  2. conflict or deadlock                   → escalate_ceo
//  3. timeout or stuck (restarts left)       → restart
//  4. error with partial outputs             → synthesize
//  5. error without outputs                  → reassign
//  6. anything else                          → synthesize
//
// Without an Outlook (the standalone handler, which cannot know) rule 1
// counts failures alone. With one that is open, the failures do not abort
// — the agents still at work could make the run succeed — and the reason
// of the decision taken instead says so, in numbers. A timeout or stall
// whose restarts are exhausted falls through to the error rules: the
// caller reports it with Error set.
func Respond(s Situation) Decision {
	d := respond(s)
	if o := s.Outlook; o != nil && o.Open && s.FailedAgents >= maxFailuresOf(s) {
		d.Reason += fmt.Sprintf(" (no abort: %d agent(s) have failed, which reaches watcher.max-failures (%d), but the run can still succeed: %s)", s.FailedAgents, maxFailuresOf(s), o.Why)
	}
	return d
}

func respond(s Situation) Decision {
	maxFailures := maxFailuresOf(s)
	switch {
	case s.FailedAgents >= maxFailures && s.Outlook == nil:
		return Decision{Abort, fmt.Sprintf("%d agent(s) have failed, which reaches watcher.max-failures (%d): stopping the rest of the run", s.FailedAgents, maxFailures)}
	case s.FailedAgents >= maxFailures && !s.Outlook.Open:
		return Decision{Abort, fmt.Sprintf("%d agent(s) have failed, which reaches watcher.max-failures (%d), and the run can no longer succeed: %s; stopping the rest of the run", s.FailedAgents, maxFailures, s.Outlook.Why)}
	case s.Conflict && s.Deadlock:
		return Decision{EscalateCEO, "the agents are in conflict and deadlocked: a human has to decide"}
	case s.Conflict:
		return Decision{EscalateCEO, "the agents are in conflict: a human has to decide"}
	case s.Deadlock:
		return Decision{EscalateCEO, "the agents are deadlocked: a human has to decide"}
	case s.Stuck && !s.RestartsExhausted:
		return Decision{Restart, "the agent showed no progress: restarting it with fresh state is the least disruptive fix"}
	case s.Timeout && !s.RestartsExhausted:
		return Decision{Restart, "the agent timed out: restarting it with fresh state is the least disruptive fix"}
	case s.Error && s.PartialOutputs:
		return Decision{Synthesize, "the agent failed but left partial output: a synthesis step keeps that work"}
	case s.Error:
		return Decision{Reassign, "the agent failed without output: hand its task to another agent"}
	}
	return Decision{Synthesize, "no rule matched: gathering what is available is the conservative choice"}
}
