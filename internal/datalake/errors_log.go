package datalake

import (
	"encoding/json"
	"fmt"
)

// ErrorRecord is one line of errors.jsonl, the same shape for every mode
// (architecture §4.9 step 8): a failure worth keeping after the run, such as an
// agent that failed or a report that did not validate.
type ErrorRecord struct {
	// Timestamp is when the failure happened, RFC 3339 in UTC.
	Timestamp string `json:"timestamp"`
	// WorkflowID is the run id.
	WorkflowID string `json:"workflow_id"`
	// Command is the mode that failed: select, delegate.
	Command string `json:"command"`
	// ErrorType names the failure (an agent error's reason, a report's
	// validation failure).
	ErrorType string `json:"error_type"`
	Message   string `json:"message"`
	// Agent and Class are the failed agent's result name and its error
	// class (transient, systematic, fatal), where they apply.
	Agent   string       `json:"agent,omitempty"`
	Class   string       `json:"class,omitempty"`
	Details ErrorDetails `json:"details"`
}

// ErrorDetails locate a failure and say what to do about it.
type ErrorDetails struct {
	Topic        string `json:"topic,omitempty"`
	ReportPath   string `json:"report_path,omitempty"`
	RecoveryHint string `json:"recovery_hint"`
}

// AppendErrors appends records to errors.jsonl in a single append-only
// write (redacted like every file of a lake opened with OpenRedacted).
func (l *Lake) AppendErrors(records ...ErrorRecord) error {
	if len(records) == 0 {
		return nil
	}
	var buf []byte
	for _, rec := range records {
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode error record: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	return Append(l.ErrorsPath(), buf)
}
