package delegate

import (
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

// TopicResult is one planned topic and what became of it.
type TopicResult struct {
	// N numbers the topic from 1 (its report's NNN).
	N     int   `json:"n"`
	Topic Topic `json:"topic"`
	// Path is the planned report, datalake-relative with forward slashes.
	Path string `json:"path"`
	// Agents are the result names of the specialists that wrote the topic
	// (one per candidate).
	Agents []string `json:"agents"`
	// Agent is the result name whose report counts: the selected candidate
	// when valid, else the first specialist.
	Agent string `json:"agent"`
	Valid bool   `json:"valid"`
	// Meta is the valid report's frontmatter.
	Meta Meta `json:"meta"`
	// SHA256 is the hex SHA-256 of the valid report; Bytes its size.
	SHA256 string `json:"sha256,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	// Failure says why the topic failed, nil when it is valid.
	Failure *Failure `json:"failure,omitempty"`
	// Selection is the topic's score table when candidates > 1.
	Selection *selection.Result `json:"selection,omitempty"`
}

// Failure is one failed step: the coordinator's or a topic's.
type Failure struct {
	// Type names the failure (a Reason* constant, failed_checks, cancelled,
	// or the agent error's reason).
	Type string `json:"error_type"`
	// Message says what went wrong; Hint what to do about it.
	Message string `json:"message"`
	Hint    string `json:"recovery_hint"`
	// Agent is the result name of the agent that failed, Class its error
	// class (transient, systematic, fatal) when it failed with one.
	Agent string `json:"agent,omitempty"`
	Class string `json:"class,omitempty"`
}

// Outcome is what a delegate run did: everything the driver records,
// commits and shows.
type Outcome struct {
	// Spec is the spec folder, datalake-relative with forward slashes
	// (specs/NNN_<slug>); SpecDir its absolute path.
	Spec, SpecDir string
	// InvocationPlan and Overview are the absolute paths of
	// .invocation-plan.txt and OVERVIEW.md, empty when not written (a
	// failed coordinator leaves neither).
	InvocationPlan, Overview string
	// Topics are the planned topics in order, with their reports.
	Topics []TopicResult
	// Valid counts the valid reports; SuccessRate is Valid / len(Topics)
	// (0 without a plan).
	Valid       int
	SuccessRate float64
	// Threshold is the pipeline's threshold.
	Threshold float64
	// Status is the barrier's verdict, completed or failed (Warned says
	// whether a completed run's summary warns); Message says it in a
	// sentence.
	Status  status.Status
	Message string
	// CoordinatorFailure says why the run had no plan.
	CoordinatorFailure *Failure
	// Coordinator is the coordinator's result; Results holds it first,
	// then every specialist's, in plan order (the score table and the
	// ledger's results).
	Coordinator *executor.Result
	Results     []*executor.Result
	// MetadataBytes is the frontmatter the overview and summary used,
	// ReportBytes the valid reports' size, ContextReduction
	// 1 − MetadataBytes/ReportBytes (0 without valid reports).
	MetadataBytes, ReportBytes int
	ContextReduction           float64
	// Errors are the lines appended to errors.jsonl.
	Errors []datalake.ErrorRecord
	// Ledger holds the members of the ledger run entry (§4.9 step 10):
	// mode, spec, success_rate and reports.
	Ledger map[string]any
	// Summary is the four-section summary (Summary, Phases, Artifacts,
	// Next Steps) as Markdown for the step summary and the comment;
	// SummaryText the same as plain text for a terminal.
	Summary, SummaryText string
	// reports are the absolute paths of the reports planned: each topic's,
	// and each candidate's when a topic has several (Keep).
	reports []string
}

// Warned reports whether the run completed with a warning: the barrier
// let it through with fewer valid reports than planned (architecture §4.9
// step 6).
func (o *Outcome) Warned() bool {
	return o.Status == status.Completed && o.Valid < len(o.Topics)
}

// Checklist renders the topics as a Markdown checklist for the progress
// comment.
func (o *Outcome) Checklist() string { return o.progress().Checklist() }

func (o *Outcome) progress() Progress {
	p := Progress{Spec: o.Spec}
	for _, t := range o.Topics {
		st := TopicState{N: t.N, Topic: t.Topic.Topic, Agents: t.Agents, State: StateValid}
		if !t.Valid {
			st.State = StateFailed
			if t.Failure != nil {
				st.Reason = t.Failure.Message
			}
		} else {
			st.Findings = t.Meta.FindingsCount
		}
		p.Topics = append(p.Topics, st)
	}
	return p
}
