package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/optr-dev/optr/internal/preset"
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

// Usage counts the tokens model calls consumed, as the provider reported
// them, and the calls whose use nobody reported (architecture §4.17:
// unknown is never 0).
//
// The tokens are the known part. Unknown counts the calls (or the whole
// attempts of a program optr could not see into) whose use is unknown: a
// response without usage, a command agent outside the model gateway. A
// Usage with Unknown calls and no known token is wholly unknown (IsUnknown):
// it is written as JSON null. Every call a provider reports uses at least
// one input token, so no known call is lost by that rule.
type Usage struct {
	// InputTokens are the prompt's tokens, those read from the
	// provider's prompt cache included.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens are the answer's tokens, reasoning included.
	OutputTokens int64 `json:"output_tokens"`
	// CachedTokens is the part of InputTokens read from the cache.
	CachedTokens int64 `json:"cached_tokens,omitempty"`
	// Unknown counts the calls whose use is not known.
	Unknown int64 `json:"unknown,omitempty"`
}

// UnknownUsage is the use of one call, or one attempt, that nobody
// reported.
var UnknownUsage = Usage{Unknown: 1}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CachedTokens: u.CachedTokens + v.CachedTokens, Unknown: u.Unknown + v.Unknown,
	}
}

// Sub returns u without v, a part of it.
func (u Usage) Sub(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens - v.InputTokens, OutputTokens: u.OutputTokens - v.OutputTokens,
		CachedTokens: u.CachedTokens - v.CachedTokens, Unknown: u.Unknown - v.Unknown,
	}
}

// Total is InputTokens + OutputTokens: the known part.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Known reports whether every call's use is known.
func (u Usage) Known() bool { return u.Unknown == 0 }

// IsUnknown reports whether nothing of the use is known: some calls went
// unreported and no token was counted.
func (u Usage) IsUnknown() bool { return u.Unknown > 0 && u.Total() == 0 }

// usageJSON is Usage's JSON form, without its methods.
type usageJSON Usage

// MarshalJSON writes null for a wholly unknown use, never zeros; a partly
// known one is the known part with "unknown": the calls not counted.
func (u Usage) MarshalJSON() ([]byte, error) {
	if u.IsUnknown() {
		return []byte("null"), nil
	}
	return json.Marshal(usageJSON(u))
}

// UnmarshalJSON reads MarshalJSON's form: null is one unknown call.
func (u *Usage) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*u = UnknownUsage
		return nil
	}
	var v usageJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*u = Usage(v)
	return nil
}

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
	// Calls are the model requests the attempt made through optr's model
	// gateway, in order (architecture §4.18); CallsOmitted counts those
	// past the gateway's bound on one attempt's record, which Usage
	// still counts.
	Calls        []Call
	CallsOmitted int
	// Metered is the part of Usage already charged to the run's meter as
	// it happened (the gateway's requests): whoever meters attempts
	// charges only the rest.
	Metered Usage
	// Session is what a preset's CLI said of its run in its event stream
	// (architecture §4.18): its turns, tool calls, and the use and cost it
	// reported itself; nil for other agents.
	Session *preset.Session
}
