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
