package delegate

import (
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
)

// CommandDelegate is errors.jsonl's command for delegate failures.
const CommandDelegate = "delegate"

// ErrorLine is one line of <datalake>/errors.jsonl (§4.9 step 8).
type ErrorLine struct {
	Timestamp string `json:"timestamp"`
	// WorkflowID is the run id.
	WorkflowID string       `json:"workflow_id"`
	Command    string       `json:"command"`
	ErrorType  string       `json:"error_type"`
	Message    string       `json:"message"`
	Details    ErrorDetails `json:"details"`
}

// ErrorDetails locate a failure.
type ErrorDetails struct {
	Topic        string `json:"topic,omitempty"`
	ReportPath   string `json:"report_path,omitempty"`
	RecoveryHint string `json:"recovery_hint"`
	Agent        string `json:"agent,omitempty"`
}

// appendErrors appends one line per failure to errors.jsonl (step 8).
func (r *runner) appendErrors() {
	ts := r.in.now().UTC().Format(time.RFC3339)
	line := func(f *Failure, topic, path string) ErrorLine {
		return ErrorLine{Timestamp: ts, WorkflowID: r.in.RunID, Command: CommandDelegate, ErrorType: f.Type,
			Message: r.in.redact(f.Message), Details: ErrorDetails{Topic: topic, ReportPath: path, RecoveryHint: f.Hint, Agent: f.Agent}}
	}
	var lines []ErrorLine
	if f := r.o.CoordinatorFailure; f != nil {
		lines = append(lines, line(f, "", ""))
	}
	for _, t := range r.o.Topics {
		if t.Failure != nil {
			lines = append(lines, line(t.Failure, t.Topic.Topic, t.Path))
		}
	}
	if r.o.Status == Failed && r.o.CoordinatorFailure == nil {
		lines = append(lines, line(&Failure{Type: "below_threshold", Message: r.o.Message,
			Hint: "see the failed topics above; fix their specialists or lower the pipeline's threshold"}, "", ""))
	}
	r.o.Errors = lines
	if len(lines) == 0 {
		return
	}
	values := make([]any, len(lines))
	for i, l := range lines {
		values[i] = l
	}
	if err := datalake.Open(r.root).AppendErrorJSON(values...); err != nil {
		r.errs = append(r.errs, fmt.Errorf("errors.jsonl: %w", err))
	}
}
