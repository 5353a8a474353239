package datalake

import (
	"encoding/json"
	"fmt"
	"time"
)

// ErrorRecord is one line of errors.jsonl: a failure worth keeping after the
// run, such as an agent that failed or a report that did not validate.
type ErrorRecord struct {
	Time     time.Time `json:"time"`
	Run      string    `json:"run"`
	Workflow string    `json:"workflow"`
	Agent    string    `json:"agent,omitempty"`
	Class    string    `json:"class,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Message  string    `json:"message"`
}

// AppendErrors appends records to errors.jsonl (append-only, one write,
// redacted like every file of a lake opened with OpenRedacted).
func (l *Lake) AppendErrors(records ...ErrorRecord) error {
	values := make([]any, len(records))
	for i, rec := range records {
		values[i] = rec
	}
	return l.AppendErrorJSON(values...)
}

// AppendErrorJSON appends each value, encoded as one JSON object, to
// errors.jsonl in a single append-only write. It is for failures whose
// line has a shape of its own, such as a delegate run's (DESIGN §4.9 step
// 8); AppendErrors writes ErrorRecords through it.
func (l *Lake) AppendErrorJSON(values ...any) error {
	if len(values) == 0 {
		return nil
	}
	var buf []byte
	for _, v := range values {
		line, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode error record: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	return Append(l.ErrorsPath(), buf)
}
