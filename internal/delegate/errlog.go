package delegate

import (
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/status"
)

// CommandDelegate is errors.jsonl's command for delegate failures.
const CommandDelegate = "delegate"

// appendErrors appends one line per failure to errors.jsonl (step 8).
func (r *runner) appendErrors() {
	ts := r.in.now().UTC().Format(time.RFC3339)
	line := func(f *Failure, topic, path string) datalake.ErrorRecord {
		return datalake.ErrorRecord{Timestamp: ts, WorkflowID: r.in.RunID, Command: CommandDelegate, ErrorType: f.Type,
			Message: r.in.redact(f.Message), Agent: f.Agent, Class: f.Class,
			Details: datalake.ErrorDetails{Topic: topic, ReportPath: path, RecoveryHint: f.Hint}}
	}
	var lines []datalake.ErrorRecord
	if f := r.o.CoordinatorFailure; f != nil {
		lines = append(lines, line(f, "", ""))
	}
	for _, t := range r.o.Topics {
		if t.Failure != nil {
			lines = append(lines, line(t.Failure, t.Topic.Topic, t.Path))
		}
	}
	if r.o.Status == status.Failed && r.o.CoordinatorFailure == nil {
		lines = append(lines, line(&Failure{Type: "below_threshold", Message: r.o.Message,
			Hint: "see the failed topics above; fix their specialists or lower the pipeline's threshold"}, "", ""))
	}
	r.o.Errors = lines
	if err := datalake.Open(r.root).AppendErrors(lines...); err != nil {
		r.errs = append(r.errs, fmt.Errorf("errors.jsonl: %w", err))
	}
}
