package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// DirStages is the folder of the stage files inside a run directory.
const DirStages = "stages"

// Record is one stage's file, stages/NN_<stage>.json: every attempt of the
// stage (across resumed checkpoints), the frames it sent, and where its
// output went.
type Record struct {
	// Index is NN: the stage's position, 1 for the first.
	Index    int           `json:"index"`
	Stage    string        `json:"stage"`
	Agent    string        `json:"agent"`
	Provider string        `json:"provider,omitempty"`
	Status   status.Status `json:"status"`
	// Attempts are the stage's attempts in order; a restart is every
	// attempt after the first of a chain.
	Attempts []Attempt `json:"attempts"`
	// Frames are the control frames and line signals the attempts sent,
	// in order.
	Frames []Frame `json:"frames"`
	// Handoff is the stage the output went to (the next one; LLM stages
	// hand off by answering); empty for the last stage and when the stage
	// did not hand off.
	Handoff string `json:"handoff"`
	// IgnoredHandoffs are the HANDOFF frames that named any other stage.
	IgnoredHandoffs []string `json:"ignored_handoffs,omitempty"`
	// OutputSHA256 is the hash of NN_<stage>.out; empty without output.
	OutputSHA256 string `json:"output_sha256"`
	// ExecMS is the stage's wall time, restart waits included.
	ExecMS int64 `json:"exec_ms"`
	// Restarts counts the restarts after crashes.
	Restarts int `json:"restarts"`
	// Resumed counts the checkpoints that retried this stage.
	Resumed int `json:"resumed,omitempty"`
	// Reason and Error say why the stage did not hand off.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`

	StartedAt  time.Time `json:"started_at,omitzero"`
	FinishedAt time.Time `json:"finished_at,omitzero"`

	output string // the output, for the next stage
}

// Attempt is one launch of a stage.
type Attempt struct {
	N          int       `json:"n"`
	Start      time.Time `json:"start"`
	DurationMS int64     `json:"duration_ms"`
	// ExitCode is a command stage's exit status (-1: killed by a signal or
	// never started); absent for LLM stages.
	ExitCode *int `json:"exit_code,omitempty"`
	// Crash is true when the attempt crashed and a restart could follow.
	Crash bool `json:"crash,omitempty"`
	// Reason is the failure's short cause (exit_status, timeout, stuck,
	// error_frame, handoff_missing, …); Error says it in words.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Tries counts the provider calls of an LLM stage's launch when
	// transient failures were retried inside it.
	Tries int `json:"tries,omitempty"`
	// DelayMS is the wait before the restart that followed.
	DelayMS int64 `json:"delay_ms,omitempty"`
}

// Frame is a control frame or line signal a stage sent.
type Frame struct {
	Attempt int    `json:"attempt"`
	Kind    string `json:"kind"`
	Payload string `json:"payload,omitempty"`
}

// RecordPath is stages/NN_<stage>.json, relative to the run directory;
// index is 0-based.
func RecordPath(index int, stage string) string {
	return filepath.Join(DirStages, fmt.Sprintf("%02d_%s.json", index+1, stage))
}

// OutputPath is stages/NN_<stage>.out, relative to the run directory;
// index is 0-based.
func OutputPath(index int, stage string) string {
	return filepath.Join(DirStages, fmt.Sprintf("%02d_%s.out", index+1, stage))
}

// FeedbackPath is where the feedback handed to the first stage is kept,
// relative to the run directory.
var FeedbackPath = filepath.Join(DirStages, "feedback.md")

// writeRecord writes rec: once, or over the record of a stage that a
// resumed checkpoint retried (its old attempts are kept in rec).
func writeRecord(run *datalake.Run, rec *Record, replace bool) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", RecordPath(rec.Index-1, rec.Stage), err)
	}
	data = append(data, '\n')
	rel := RecordPath(rec.Index-1, rec.Stage)
	if replace {
		return datalake.Replace(run.Path(rel), data)
	}
	return run.WriteFile(rel, data)
}

// readRecord reads the record of stage index, nil when there is none.
func readRecord(run *datalake.Run, index int, stage string) (*Record, error) {
	data, err := os.ReadFile(run.Path(RecordPath(index, stage)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", RecordPath(index, stage), err)
	}
	return &rec, nil
}

// LoadCommitted reads back the outputs of stages[:upTo] from run: each
// stage's record must say it handed off, and its NN_<stage>.out must hash
// to the record's output_sha256. It is what a resumed checkpoint carries
// on from.
func LoadCommitted(run *datalake.Run, stages []string, upTo int) ([]Committed, error) {
	if upTo > len(stages) {
		return nil, fmt.Errorf("resume at stage %d, but the pipeline has %d stages", upTo+1, len(stages))
	}
	out := make([]Committed, 0, upTo)
	for i, s := range stages[:upTo] {
		rec, err := readRecord(run, i, s)
		switch {
		case err != nil:
			return nil, fmt.Errorf("stage %s: %w", s, err)
		case rec == nil:
			return nil, fmt.Errorf("stage %s has no record %s in %s, so the run cannot carry on after it", s, RecordPath(i, s), run.Dir)
		case rec.Status != status.HandedOff:
			return nil, fmt.Errorf("stage %s did not hand off (its record says %s), so the run cannot carry on after it", s, rec.Status)
		}
		data, err := os.ReadFile(run.Path(OutputPath(i, s)))
		if err != nil {
			return nil, fmt.Errorf("stage %s: read its output: %w", s, err)
		}
		if sum := executor.SHA256Hex(string(data)); sum != rec.OutputSHA256 {
			return nil, fmt.Errorf("stage %s: %s has sha256 %s, but its record says %s: the committed output was changed", s, OutputPath(i, s), sum, rec.OutputSHA256)
		}
		out = append(out, Committed{Stage: s, Output: string(data)})
	}
	return out, nil
}

// framesOf turns an attempt's signals into frames.
func framesOf(n int, sigs []agent.Signal) []Frame {
	out := make([]Frame, len(sigs))
	for i, s := range sigs {
		out[i] = Frame{Attempt: n, Kind: s.Kind, Payload: s.Payload}
	}
	return out
}
