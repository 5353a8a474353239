package checkpoint

import (
	"encoding/json"
	"time"
)

// Trigger is why a checkpoint was raised. The set is open: the constants
// below are the triggers optr raises, and a saved checkpoint may name any
// upper-case word (see ValidTrigger).
type Trigger string

// The triggers optr raises.
const (
	// TriggerNoAdmissible: no result passed every hard constraint
	// (selection.on-no-admissible: checkpoint).
	TriggerNoAdmissible Trigger = "NO_ADMISSIBLE"
	// TriggerApproval: a result was selected and waits for approval before
	// commit-back (checkpoints.before-commit: true).
	TriggerApproval Trigger = "APPROVAL"
	// TriggerHiccup: recovery ran out of options.
	TriggerHiccup Trigger = "HICCUP"
	// TriggerBudget: the run's budget is spent.
	TriggerBudget Trigger = "BUDGET"
	// TriggerThreat: threat detection found something in π*'s result
	// (detection.on-finding: checkpoint, architecture §4.15); nothing is
	// delivered until a human answers.
	TriggerThreat Trigger = "THREAT"
)

// Action is what the caller does once an option is chosen.
type Action string

// The actions an option can carry.
const (
	// ActionProceed continues the run: to selection and commit.
	ActionProceed Action = "proceed"
	// ActionSkip records the run and finishes it without a selection.
	ActionSkip Action = "skip"
	// ActionPause leaves the checkpoint open to be decided later.
	ActionPause Action = "pause"
	// ActionAbort ends the run.
	ActionAbort Action = "abort"
)

// Closes reports whether choosing a carries the run on, so that the
// checkpoint is decided: every action except pause.
func (a Action) Closes() bool { return a != ActionPause }

// Option is one numbered choice at a checkpoint.
type Option struct {
	// N is the option's number, 1 for the first.
	N int `json:"n"`
	// Label names the option in a word or two, e.g. "Proceed".
	Label string `json:"label"`
	// Description says what choosing it does.
	Description string `json:"description"`
	// Action is what the caller carries out.
	Action Action `json:"action"`
}

// Checkpoint is a paused decision: what happened, what can be done, and
// what the caller needs to carry on. It is saved as
// <datalake>/checkpoints/<ID>.json.
type Checkpoint struct {
	// ID names the checkpoint (see NewID); it is also the file's base name
	// and the id in the comment marker.
	ID string `json:"id"`
	// Trigger is why the run paused.
	Trigger Trigger `json:"trigger"`
	// Run and Workflow name the paused run.
	Run      string `json:"run"`
	Workflow string `json:"workflow"`
	// Created is when the checkpoint was raised.
	Created time.Time `json:"created"`
	// Context explains the situation to the human, in Markdown. It may hold
	// untrusted text (agent output, issue text), so it is always shown
	// fenced, never rendered.
	Context string `json:"context"`
	// Options are the choices, numbered 1, 2, 3, … in order.
	Options []Option `json:"options"`
	// Recommended is the number of the recommended option.
	Recommended int `json:"recommended"`
	// Recommendation says why that option is recommended: learned from the
	// ledger, from the config, or the default.
	Recommendation string `json:"recommendation"`
	// State is the caller's opaque resume state (the agents, the score
	// table, …). It must be JSON when set.
	State json.RawMessage `json:"state,omitempty"`
}

// Option returns the option numbered n.
func (cp Checkpoint) Option(n int) (Option, bool) {
	for _, o := range cp.Options {
		if o.N == n {
			return o, true
		}
	}
	return Option{}, false
}

// OptionFor returns the first option that carries action a.
func (cp Checkpoint) OptionFor(a Action) (Option, bool) {
	for _, o := range cp.Options {
		if o.Action == a {
			return o, true
		}
	}
	return Option{}, false
}

// New returns the checkpoint number seq (1 for a run's first) of run in
// workflow, raised for trigger at created, with the standard options for
// the trigger (StandardOptions) and option 1 recommended by default. The
// caller sets Recommended and Recommendation from Recommend and fills
// State before saving it.
func New(run, workflow string, seq int, trigger Trigger, context string, created time.Time) (Checkpoint, error) {
	id, err := NewID(run, seq)
	if err != nil {
		return Checkpoint{}, err
	}
	cp := Checkpoint{
		ID:             id,
		Trigger:        trigger,
		Run:            run,
		Workflow:       workflow,
		Created:        created.UTC(),
		Context:        context,
		Options:        StandardOptions(trigger),
		Recommended:    1,
		Recommendation: whyDefault,
	}
	if err := cp.Validate(); err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}
