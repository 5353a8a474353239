package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/status"
)

// Task is one agent to run.
type Task struct {
	Agent    agent.Agent
	Provider string
	Model    string
	// Timeout bounds one launch of the agent, retries included (0 = none);
	// a restart gets a fresh Timeout.
	Timeout time.Duration
	// AttemptTimeout bounds one attempt (0 = the policy's).
	AttemptTimeout time.Duration
	// Dir, when set, is this agent's own working directory (its git
	// worktree when agents change code): it replaces Request.Dir for the
	// agent, and the command checks of its result run there
	// (check.WithDir), so that a check such as go test ./... tests this
	// agent's change.
	Dir string
	// Configured names the configured agent (agents.<name>) behind Agent
	// when Agent's Name is another: a delegation's candidate is named
	// <agent>.<NNN>. Its result carries it (Result.Configured).
	Configured string
}

// Event reports an agent's state change, for live progress displays.
type Event struct {
	Agent   string
	Status  status.Status
	Elapsed time.Duration
	// Attempt is the attempt number now running (1-based).
	Attempt int
	// Result is set when the agent finished (Status is final).
	Result *Result
}

// Options configure one fan-out.
type Options struct {
	Tasks []Task
	// Request is the base request; Agent-specific fields are filled per agent.
	Request agent.Request
	// MaxParallel bounds concurrently running agents (<= 0: all at once).
	MaxParallel int
	// Constraints are checked against every result.
	Constraints []check.Constraint
	// Policy runs each agent's attempts.
	Policy recovery.Policy
	// CheckDuringRecovery makes failed hard constraints a systematic
	// failure inside recovery, so an analyzer can suggest an alternative.
	CheckDuringRecovery bool
	// Sink receives each final result once, the moment its agent is done
	// (after its failure, if any, was reported to Failed), before checks
	// run; a Sink error is recorded in the returned error. Results with a
	// large output in memory are sunk one at a time; those whose output is
	// on disk (Result.Spooled) may be sunk together, so write them with
	// Result.EncodeJSON, which streams it.
	Sink func(*Result) error
	// OnEvent, when set, hears every state change. It must be safe for
	// concurrent use.
	OnEvent func(Event)
	// Sent, when set, hears the name of a result once its agent has sent
	// its work off (agent.Request.Sent): at most once per launch, from the
	// agent's goroutine. Set-up a result needs only when it is done (its
	// file) is made then, while the agent works, not before the agents
	// that start with it sent their requests. It must be safe for
	// concurrent use.
	Sent func(name string)
	// Launched, when set, is called once, when every task Run starts at
	// once (all of them, or the first MaxParallel) has had its agent send
	// its work off or has ended, and at the latest once every agent is
	// done: the moment from which work the run needs only at its end (a
	// file that records it) competes with no agent's request.
	Launched func()
	// Supervise, when set, wraps each launch's context and progress: the
	// watcher uses it to notice stuck agents. A launch whose context is
	// cancelled with escalation.ErrRestart is relaunched with fresh state
	// (at most MaxRestarts times); escalation.ErrAbort aborts the run.
	// escalation.(*Watcher).Supervise fits.
	Supervise func(ctx context.Context, agentName string) (context.Context, func(agent.Progress), func())
	// Failed, when set, hears every agent that failed and answers with the
	// decision Run carries out: restart (relaunch, at most MaxRestarts),
	// reassign (a free spare takes the task), synthesize (the partial output
	// goes to the Synthesizer), abort (every other agent is cancelled and
	// Run reports escalation.ErrAbort). Each failure carries the run's
	// Outlook. escalation.(*Watcher).Failed fits.
	Failed func(escalation.Failure) escalation.Escalation
	// MaxRestarts bounds the relaunches of one agent (watcher.max-restarts).
	MaxRestarts int
	// Outlook says, when an agent fails, whether the run can still
	// succeed from where its tasks stand; it goes to Failed with the
	// failure, and the watcher aborts only a run that cannot
	// (escalation.Outlook). nil is SelectOutlook; a delegation brings its
	// threshold.
	Outlook func(Standing) escalation.Outlook
	// Spares are agents that may take over the task of a failed agent. A
	// spare is used when it is not running at that moment and has not
	// already tried that task; it may be one of Tasks.
	Spares []Task
	// Synthesizer, when set, runs once after every agent is done when some
	// agents' partial outputs were sent to synthesis: its intent is the
	// original one plus those outputs, fenced as untrusted data
	// (SynthesisIntent). Its result is named "synthesis".
	Synthesizer *Task
	// Now is the clock (time.Now by default).
	Now func() time.Time
}

// SynthesisAgent is the name of the synthesis step's result.
const SynthesisAgent = "synthesis"

// Run runs every task and returns one Result per task, in task order,
// followed by the results of spares that took over a failed agent's task
// (in the order of the tasks they replaced) and, last, the synthesis result.
// An agent's failure is recorded in its Result and never cancels the
// others, unless the watcher decides to abort: then the remaining agents
// are cancelled and the error wraps escalation.ErrAbort. Otherwise the
// error reports only what could not be recorded (a Sink failure) or a
// cancelled run.
func Run(ctx context.Context, opts Options) ([]*Result, error) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	x := newExecution(ctx, runCtx, cancel, opts)
	var g errgroup.Group // no WithContext: one failure must not cancel the rest
	if opts.MaxParallel > 0 {
		g.SetLimit(opts.MaxParallel)
	}
	for _, name := range x.names {
		x.emit(Event{Agent: name, Status: status.Queued})
	}
	for i, t := range opts.Tasks {
		g.Go(func() error {
			x.runTask(i, t)
			return nil
		})
	}
	_ = g.Wait()
	x.wave.done()
	results := x.ordered()
	if r := x.synthesize(results); r != nil {
		results = append(results, r)
	}
	x.checks.Wait()
	err := errors.Join(x.sinkErrs()...)
	if runCtx.Err() != nil {
		cause := context.Cause(runCtx)
		if errors.Is(cause, escalation.ErrAbort) {
			err = errors.Join(err, fmt.Errorf("run aborted: %w", cause))
		} else {
			err = errors.Join(err, fmt.Errorf("run cancelled: %w", cause))
		}
	}
	return results, err
}
