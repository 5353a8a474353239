package stages

import (
	"fmt"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/status"
)

// Mode is the ledger run entry's mode for stages pipelines.
const Mode = config.ModeStages

// Outcome is what a stages run did.
type Outcome struct {
	// Pipeline is the pipeline's name.
	Pipeline string
	// Status is completed, failed, or paused (Trigger says at which
	// checkpoint: HICCUP after an escalation, NO_ADMISSIBLE when the last
	// output failed hard constraints, BUDGET when the budget ran out).
	Status  status.Status
	Trigger checkpoint.Trigger
	// Message says why the run failed or paused, or what to know about a
	// completed one; empty otherwise.
	Message string
	// Stages has one record per stage, in order; stages that never ran
	// have status.NotStarted.
	Stages []*Record
	// Output is the last stage's output (result.md), set when every stage
	// ran; OutputSHA256 its hash.
	Output       string
	OutputSHA256 string
	// Checks are the run's constraints on Output.
	Checks check.Evaluation
	// Escalation is set when a stage failed for good: an escalate_ceo
	// escalation to post (escalation.Comment), record in the ledger
	// (LedgerFields, before the run entry) and hand to the watcher.
	Escalation *escalation.Escalation
	// ResumeAt is the failed stage's index, where a resumed HICCUP
	// checkpoint's "retry" starts (Input.StartAt); -1 when none failed.
	ResumeAt int
	// Started and Finished bound this Run call.
	Started, Finished time.Time
}

// LedgerFields are the stages members of the run's ledger entry (architecture
// §4.10): mode, pipeline, and stages, one object per stage with stage,
// agent, status, attempts, handoff, output_sha256 and exec_ms. The caller
// adds the members every run entry has (status, intent_sha256, …).
func (o *Outcome) LedgerFields() map[string]any {
	list := make([]any, len(o.Stages))
	for i, r := range o.Stages {
		list[i] = map[string]any{
			"stage":         r.Stage,
			"agent":         r.Agent,
			"status":        string(r.Status),
			"attempts":      int64(len(r.Attempts)),
			"handoff":       r.Handoff,
			"output_sha256": r.OutputSHA256,
			"exec_ms":       r.ExecMS,
		}
	}
	return map[string]any{"mode": Mode, "pipeline": o.Pipeline, "stages": list}
}

// Last is the last stage's record.
func (o *Outcome) Last() *Record { return o.Stages[len(o.Stages)-1] }

// HiccupOptions are the options of the HICCUP checkpoint a failed stage
// raises: the standard four under the standard numbers, with Proceed
// meaning "retry the stage" (resume with Input.StartAt = ResumeAt).
func (o *Outcome) HiccupOptions() []checkpoint.Option {
	opts := checkpoint.StandardOptions(checkpoint.TriggerHiccup)
	if o.ResumeAt < 0 {
		return opts
	}
	s := o.Stages[o.ResumeAt].Stage
	opts[0].Description = fmt.Sprintf("retry stage %s from its input and carry on; the stages before it are not run again", s)
	opts[1].Description = fmt.Sprintf("record the run with stage %s failed, select nothing", s)
	return opts
}

// escalation is the escalate_ceo escalation for failed stage rec.
func (r *runner) escalation(rec *Record) *escalation.Escalation {
	c := r.in.Config
	last := Attempt{Reason: rec.Reason, Error: rec.Error} // no attempt: its agent could not be built
	crashes := 0
	for _, a := range rec.Attempts {
		last = a
		if a.Crash {
			crashes++
		}
	}
	trigger := escalation.TriggerError
	switch last.Reason {
	case reasonStuck:
		trigger = escalation.TriggerStuck
	case reasonTimeout:
		trigger = escalation.TriggerTimeout
	}
	var why string
	if rec.Status == status.Escalated {
		why = fmt.Sprintf("stage %s crashed %d time(s) and used its %d restart(s) (pipelines.%s.restarts)", rec.Stage, crashes, c.Restarts, c.Pipeline)
	} else {
		why = fmt.Sprintf("stage %s failed (%s), which a restart cannot fix", rec.Stage, rec.Reason)
	}
	e := &escalation.Escalation{
		ID:      fmt.Sprintf("%s-stage%02d-a%d", safeID(r.in.Request.RunID), rec.Index, len(rec.Attempts)),
		Time:    r.now().UTC(),
		Agent:   rec.Agent,
		Trigger: trigger,
		Reason:  fmt.Sprintf("%s: %s", why, firstLine(last.Error)),
		Detail:  last.Error,
		Situation: escalation.Situation{
			FailedAgents: 1, Error: true, RestartsExhausted: rec.Status == status.Escalated,
			Timeout: trigger == escalation.TriggerTimeout, Stuck: trigger == escalation.TriggerStuck,
		},
		Decision: escalation.Decision{Action: escalation.EscalateCEO,
			Reason: "a stage is never skipped, so the pipeline cannot go on without a person"},
		LastErrors: []escalation.AgentError{{Agent: rec.Agent, Error: last.Error}},
	}
	for _, a := range rec.Attempts {
		e.Tried = append(e.Tried, describeAttempt(a))
	}
	later := len(c.Stages) - rec.Index
	e.Actions = append(e.Actions, fmt.Sprintf("stage %s stopped; the %d later stage(s) were not started", rec.Stage, later))
	if r.in.OnNoAdmissible == config.NoAdmissibleCheckpoint {
		e.Actions = append(e.Actions, fmt.Sprintf("the run pauses at a HICCUP checkpoint: choose 1 to retry stage %s", rec.Stage))
	} else {
		e.Actions = append(e.Actions, "the run fails (selection.on-no-admissible is not checkpoint)")
	}
	return e
}

// describeAttempt says in a line how an attempt ended.
func describeAttempt(a Attempt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "attempt %d", a.N)
	if a.ExitCode != nil {
		fmt.Fprintf(&b, " (exit %d)", *a.ExitCode)
	}
	if a.Reason != "" {
		fmt.Fprintf(&b, ": %s", a.Reason)
	}
	if a.DelayMS > 0 {
		fmt.Fprintf(&b, ", restarted after %s", time.Duration(a.DelayMS)*time.Millisecond)
	}
	return b.String()
}

// failedHow says how a stage that did not hand off ended.
func failedHow(rec *Record) string {
	switch rec.Status {
	case status.Escalated:
		return fmt.Sprintf("crashed after %d restart(s) (%s) and was escalated", rec.Restarts, rec.Reason)
	case status.Cancelled:
		return "was cancelled"
	}
	return fmt.Sprintf("failed (%s)", rec.Reason)
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// safeID keeps the characters of id that are safe in escalation ids.
func safeID(id string) string {
	id = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return -1
	}, id)
	if id == "" {
		return "run"
	}
	return id
}
