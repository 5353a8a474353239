package stages

import (
	"context"
	"log/slog"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/recovery"
)

// Input is everything one Run needs. The zero values of the optional
// fields are usable.
type Input struct {
	// Config is the pipeline.
	Config Config
	// Request is the base request of every stage: Intent, Workflow, RunID,
	// Dir (the workspace), OutputDir, Constraints and ConstraintText. Run
	// fills in the stage's input and its Stage, NextStage, PreviousOutput
	// and Feedback.
	Request agent.Request
	// Run is the run's directory; the stage files go to its stages/.
	Run *datalake.Run
	// Task builds the agent of a stage (the driver's agent factory, with
	// redaction already wrapped around it). It is called once per stage.
	Task func(stage string) (executor.Task, error)
	// Constraints are the run's constraints, checked on the last stage's
	// output; a failed hard constraint goes to OnNoAdmissible.
	Constraints []check.Constraint
	// OnNoAdmissible is selection.on-no-admissible: checkpoint pauses
	// (HICCUP after an escalation, NO_ADMISSIBLE after failed checks),
	// least-bad completes anyway after failed checks, fail fails.
	OnNoAdmissible string
	// Policy is the recovery policy. A stage's launch uses it only for
	// transient provider failures of LLM stages (rate limits, 5xx, with
	// Retry-After); command stages make one attempt per launch, and a
	// stage's restarts, not Level-2 analysis, answer its crashes.
	Policy recovery.Policy
	// Supervise, when set, watches each launch of a stage the way
	// executor.Options.Supervise does (escalation.(*Watcher).Supervise
	// fits): a launch it stops as stuck is a crash; one it stops with
	// escalation.ErrAbort fails the stage.
	Supervise func(ctx context.Context, stage string) (context.Context, func(agent.Progress), func())
	// OnEvent, when set, hears every change of a stage's state, in order,
	// from the goroutine that called Run.
	OnEvent func(Event)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Sleep waits for d or until ctx is done and then returns ctx's error
	// (a timer when nil). Tests inject it or run under testing/synctest.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives warnings: ignored handoffs, malformed records
	// (slog.Default when nil).
	Logger *slog.Logger
	// StartAt is the index of the first stage to run: 0 for a new run, the
	// failed stage (Outcome.ResumeAt) when a HICCUP checkpoint is resumed
	// with "retry".
	StartAt int
	// Committed are the outputs of the stages before StartAt. When nil and
	// StartAt > 0, Run reads them back from the run directory
	// (LoadCommitted).
	Committed []Committed
	// Feedback is what the first stage gets with feedback: true; nil on a
	// pipeline's first run. Its content must hash to Source.SHA256.
	Feedback *Feedback
}

// Committed is the committed output of a stage that handed off before the
// run paused.
type Committed struct {
	Stage  string
	Output string
}

// Feedback is the last stage's output of the previous completed run of the
// pipeline, found with FeedbackFinder.
type Feedback struct {
	Source  FeedbackSource
	Content string
}

// State is where a stage is, as the checklist shows it.
type State string

// The stage states.
const (
	// StateReady: waiting for the stage before it to hand off.
	StateReady State = "ready"
	// StateWorking: an attempt is running.
	StateWorking State = "working"
	// StateCrashed: the last attempt crashed; a restart follows after
	// Event.Delay.
	StateCrashed State = "crashed"
	// StateHandedOff: the stage handed its output to the next one.
	StateHandedOff State = "handed off"
	// StateDone: the last stage finished.
	StateDone State = "done"
	// StateFailed: the stage failed for good (restarts used up, or a
	// failure no restart fixes); later stages never start.
	StateFailed State = "failed"
)

// Event is a change of one stage's state.
type Event struct {
	// Index is the stage's position, 0 for the first.
	Index int
	// Stage is the stage's name.
	Stage string
	// State is the new state.
	State State
	// Attempt is the attempt running or just ended (1-based; 0 when none).
	Attempt int
	// Restarts counts the stage's restarts so far.
	Restarts int
	// Delay is the wait before the restart (StateCrashed).
	Delay time.Duration
	// Elapsed is the stage's time so far.
	Elapsed time.Duration
	// Error is the crash or failure, in words (untrusted).
	Error string
}
