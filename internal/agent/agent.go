package agent

import (
	"context"
	"time"

	"github.com/optr-dev/optr/internal/sandbox/proxy"
	"github.com/optr-dev/optr/internal/spool"
)

// Agent is one configured agent. Run performs a single attempt: retries,
// backoff and Level-2 analysis are the caller's business (package recovery),
// so an Agent never retries on its own.
type Agent interface {
	// Name is the agent's configured name, unique within a run.
	Name() string
	// Run asks the agent to act on req. A failed attempt returns a non-nil
	// error, preferably an *Error that carries its Class; the returned
	// Response still holds whatever was captured (partial output, stderr,
	// exit code, tokens) so nothing is lost.
	Run(ctx context.Context, req Request) (Response, error)
}

// Request is what one attempt of an agent receives.
type Request struct {
	// Intent is the task, as untrusted text from a user.
	Intent string
	// Workflow is the workflow slug the run belongs to.
	Workflow string
	// RunID identifies the run.
	RunID string
	// Stage names the pipeline stage, empty outside staged pipelines. In a
	// delegate pipeline it is the agent's part: "coordinator" or
	// "specialist".
	Stage string
	// Topic is a delegate specialist's topic (OPTR_TOPIC), empty otherwise.
	Topic string
	// ReportPath is the absolute path where a delegate specialist writes its
	// report (OPTR_REPORT_PATH), empty otherwise.
	ReportPath string
	// NextStage names the stage after Stage in a staged pipeline, the one
	// a command stage hands off to; empty for the last stage and outside
	// staged pipelines.
	NextStage string
	// PreviousOutput is the path of a file holding the previous stage's
	// output (frames removed); empty for the first stage and outside
	// staged pipelines.
	PreviousOutput string
	// Feedback is the path of a file holding the last stage's output of
	// the previous completed run of the pipeline (feedback: true); empty
	// when there is none.
	Feedback string
	// Constraints are the names of the constraints the output must satisfy.
	Constraints []string
	// ConstraintText describes each constraint in words, for LLM prompts
	// (same order as Constraints; may be shorter).
	ConstraintText []string
	// Hint is a recovery hint from Level-2 analysis, empty on a first attempt.
	Hint string
	// OutputDir is a directory the agent may write extra files into.
	OutputDir string
	// Dir is the working directory for command agents (the workspace).
	Dir string
	// SpoolDir, when set, is a directory where a command agent keeps an
	// output too large to hold in memory (Response.Spool), in a file whose
	// name starts with spool.FilePrefix; empty keeps every output in memory.
	SpoolDir string
	// Worktree, when set, is the agent's own git worktree in a run whose
	// agents change code (changes.mode, architecture §4.12): a command agent runs
	// in it (Dir is the same), and a copilot agent works in it as a coding
	// agent, with file tools limited to it. Empty when agents answer in
	// text only.
	Worktree string
	// Progress, when set, is told about every sign of life (output bytes,
	// frames, tokens) so a watchdog can tell a stuck agent from a slow one.
	// It may be called from several goroutines.
	Progress func(Progress)
	// Sent, when set, is called once the attempt's work has left optr: an
	// LLM agent's request written to its connection, a command agent's
	// process started. What the caller defers until then (the result
	// file's reservation) overlaps the wait for the answer instead of
	// delaying the requests of the agents that start with it. An agent
	// calls it at most once per attempt, possibly from another goroutine;
	// one that cannot tell (the request never left) does not call it.
	Sent func()
}

// Progress is one sign of life from a running agent.
type Progress struct {
	// Bytes is the number of output bytes received since the last report.
	Bytes int
	// Frame is the kind of control frame received, if any (READY, HANDOFF, …).
	Frame string
	// Tokens is the number of tokens received since the last report.
	Tokens int64
}

// Usage counts the tokens an attempt consumed, as reported by the provider.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// Total is InputTokens + OutputTokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Signal is a line signal a command agent printed (REPORT_CREATED,
// TASK_ERROR, ERROR_CONTEXT) or a control frame it sent.
type Signal struct {
	Kind    string `json:"kind"`
	Payload string `json:"payload,omitempty"`
}

// Response is what one attempt produced.
type Response struct {
	// Output is the agent's answer: stdout with control frames removed for
	// command agents, the parsed "output" for LLM agents. It is empty when
	// the answer was too large to hold in memory and Spool holds it.
	Output string
	// Spool, when set, holds the answer on disk instead of Output (a
	// command agent whose Request had a SpoolDir), already redacted.
	Spool *spool.File
	// TTV is the agent's own time-to-value estimate (RESULT frame or
	// ttv_estimate_ms); zero when the agent did not say.
	TTV time.Duration
	// FirstOutput is how long after the attempt started its answer first
	// appeared: the first byte of a command agent's output (frames
	// removed), an LLM's answer arriving. Zero when there was none. A TTV
	// claim below it is bounded to it: no value exists before its output.
	FirstOutput time.Duration
	// Raw is the unparsed model text for LLM agents, kept when parsing fails.
	Raw string
	// Stderr is what a command agent wrote to stderr (bounded).
	Stderr string
	// ExitCode is a command agent's exit status (-1 when killed or unknown).
	ExitCode int
	// Model is the model that answered, when the provider says.
	Model string
	// Usage is the token use of this attempt.
	Usage Usage
	// Signals are the frames and line signals seen, in order.
	Signals []Signal
	// Network lists every host a sandboxed process of the attempt asked
	// optr's egress proxy for, reached or refused (architecture §4.14).
	Network []proxy.Host
}
