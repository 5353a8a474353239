package delegate

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/status"
)

// Failure types beyond the plan and report reasons.
const (
	TypeFailedChecks     = recovery.ReasonFailedChecks
	TypeCancelled        = "cancelled"
	TypeSpecialistFailed = "specialist_failed"
	TypeNoAdmissible     = "no_admissible_candidate"
)

// resultFailure says why a result does not count.
func resultFailure(r *executor.Result) Failure {
	f := Failure{Agent: r.Agent, Class: r.Class}
	switch {
	case r.Status == status.Succeeded && !r.Checks.Admissible:
		f.Type, f.Message = TypeFailedChecks, "the report fails the run's hard constraints: "+failedChecks(r.Checks)
	case r.Reason == recovery.ReasonFailedChecks:
		f.Type, f.Message = TypeFailedChecks, "the report fails the run's hard constraints: "+failedChecks(r.Checks)
	case r.Status == status.Cancelled:
		f.Type, f.Message = TypeCancelled, r.Error
	default:
		f.Type, f.Message = r.Reason, r.Error
		if f.Type == "" {
			f.Type = TypeSpecialistFailed
		}
		if f.Message == "" {
			f.Message = fmt.Sprintf("%s ended %s without a usable report", r.Agent, r.Status)
		}
	}
	if r.DecisionNote != "" {
		f.Message += " (watcher: " + r.Decision + ", " + r.DecisionNote + ")"
	}
	f.Hint = hintFor(f.Type)
	return f
}

// failedChecks lists the failed hard constraints with their reasons.
func failedChecks(ev check.Evaluation) string {
	var parts []string
	for _, v := range ev.Verdicts {
		if v.Hard && v.Status == status.Failed {
			parts = append(parts, v.Constraint+" ("+clip(v.Reason)+")")
		}
	}
	if len(parts) == 0 {
		return strings.Join(ev.HardFailed, ", ")
	}
	return strings.Join(parts, ", ")
}

// candidatesFailure says why no candidate of a topic was selected.
func candidatesFailure(results []*executor.Result) *Failure {
	var parts []string
	for _, r := range results {
		f := resultFailure(r)
		parts = append(parts, r.Agent+": "+f.Message)
	}
	return &Failure{Type: TypeNoAdmissible, Message: "no candidate wrote an admissible report; " + strings.Join(parts, "; "),
		Hint: hintFor(TypeNoAdmissible), Agent: results[0].Agent}
}

// hints say, per failure type, what a person can do.
var hints = map[string]string{
	ReasonPlanMissing:      "have the coordinator answer its plan: an LLM a JSON object {\"topics\":[…]}, a command the lines INVOCATION_PLAN_READY: N, the JSON array, RESEARCH_COORDINATOR_COMPLETE: SUCCESS",
	ReasonPlanMalformed:    "make the plan one JSON array of {\"topic\",\"focus\"} objects, as many as INVOCATION_PLAN_READY announces",
	ReasonPlanEmpty:        "ask the coordinator for at least one topic",
	ReasonPlanTooLong:      "have the coordinator plan at most max-topics topics, or raise max-topics in the pipeline",
	ReasonPlanDuplicate:    "have the coordinator plan distinct topics",
	ReasonPlanEmptySlug:    "give every topic letters or digits: they name its report file",
	ReasonPlanBadTopic:     "keep every topic to one short line",
	ReasonPlanIncomplete:   "have the coordinator end with RESEARCH_COORDINATOR_COMPLETE: SUCCESS once the plan is printed",
	ReasonCoordinatorError: "see the coordinator's agent output and error in agent-outputs/, fix the agent, then run again",
	ReasonReportMissing:    "have the specialist write its report to $OPTR_REPORT_PATH and print REPORT_CREATED: <that path>",
	ReasonReportElsewhere:  "write the report to $OPTR_REPORT_PATH exactly; a report anywhere else does not count",
	ReasonReportNotFile:    "write the report itself at $OPTR_REPORT_PATH, not a link or a folder",
	ReasonReportTooLarge:   "keep the report under 1 MiB: summarise, and link sources instead of copying them",
	ReasonFrontmatter:      "start the report with --- and YAML holding report_type, topic (the planned topic), findings_count, recommendations_count, created_date and status, then ---",
	ReasonSections:         "give the report the sections ## Summary, ## Findings and ## Sources",
	ReasonCounts:           "set findings_count and recommendations_count to the number of bullets under ## Findings and ## Recommendations",
	ReasonTaskError:        "read the specialist's TASK_ERROR message and ERROR_CONTEXT, fix the cause, then run again",
	TypeFailedChecks:       "make the report satisfy the run's hard constraints (the verdicts are in the agent's output file)",
	TypeCancelled:          "the run was stopped before the specialist finished; run again",
	TypeNoAdmissible:       "see each candidate's failure; at least one must write a valid report that passes the hard constraints",
}

// hintFor returns the recovery hint of a failure type.
func hintFor(typ string) string {
	if h, ok := hints[typ]; ok {
		return h
	}
	return "see the specialist's output and error in agent-outputs/, fix the agent, then run again"
}
