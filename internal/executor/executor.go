package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/recovery"
)

// Task is one agent to run.
type Task struct {
	Agent    agent.Agent
	Provider string
	Model    string
	// Timeout bounds the whole agent, retries included (0 = none).
	Timeout time.Duration
	// AttemptTimeout bounds one attempt (0 = the policy's).
	AttemptTimeout time.Duration
	// Price converts the agent's token use into US dollars (nil = unknown).
	Price func(agent.Usage) float64
}

// Event reports an agent's state change, for live progress displays.
type Event struct {
	Agent   string
	Status  Status
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
	// Sink receives each result the moment its agent finishes, before
	// checks run; a Sink error is recorded in the returned error.
	Sink func(*Result) error
	// OnEvent, when set, hears every state change. It must be safe for
	// concurrent use.
	OnEvent func(Event)
	// Supervise, when set, wraps each agent's context and progress: the
	// watcher uses it to notice stuck agents and restart them.
	Supervise func(ctx context.Context, agentName string) (context.Context, func(agent.Progress), func())
	// Now is the clock (time.Now by default).
	Now func() time.Time
}

// Run runs every task and returns one Result per task, in task order. An
// agent's failure is recorded in its Result and never cancels the others;
// the error reports only what could not be recorded (a Sink failure) or a
// cancelled run.
func Run(ctx context.Context, opts Options) ([]*Result, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	results := make([]*Result, len(opts.Tasks))
	sinkErrs := make([]error, len(opts.Tasks))
	var g errgroup.Group // no WithContext: one failure must not cancel the rest
	if opts.MaxParallel > 0 {
		g.SetLimit(opts.MaxParallel)
	}
	for i, t := range opts.Tasks {
		emit(opts, Event{Agent: t.Agent.Name(), Status: Queued})
		g.Go(func() error {
			r := runOne(ctx, opts, t, now)
			results[i] = r
			if opts.Sink != nil {
				if err := opts.Sink(r); err != nil {
					sinkErrs[i] = fmt.Errorf("record %s: %w", r.Agent, err)
				}
			}
			if r.HasOutput() && r.Checks.Verdicts == nil {
				r.Checks = check.Evaluate(ctx, opts.Constraints, r.Output)
			}
			emit(opts, Event{Agent: r.Agent, Status: r.Status, Elapsed: time.Duration(r.ExecMS) * time.Millisecond, Result: r})
			return nil
		})
	}
	_ = g.Wait()
	err := errors.Join(sinkErrs...)
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("run cancelled: %w", context.Cause(ctx)))
	}
	return results, err
}

func runOne(ctx context.Context, opts Options, t Task, now func() time.Time) *Result {
	name := t.Agent.Name()
	start := now()
	r := &Result{Agent: name, Provider: t.Provider, Model: t.Model, StartedAt: start.UTC()}
	actx := ctx
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, t.Timeout)
		defer cancel()
	}
	req := opts.Request
	var progress func(agent.Progress)
	if opts.Supervise != nil {
		var done func()
		actx, progress, done = opts.Supervise(actx, name)
		defer done()
	}
	req.Progress = progress
	emit(opts, Event{Agent: name, Status: Running, Attempt: 1})

	var eval check.Evaluation
	var evalOutput string
	var accept func(context.Context, agent.Response) error
	if opts.CheckDuringRecovery && len(opts.Constraints) > 0 {
		accept = func(ctx context.Context, resp agent.Response) error {
			eval, evalOutput = check.Evaluate(ctx, opts.Constraints, resp.Output), resp.Output
			if !eval.Admissible {
				return agent.Errorf(agent.Systematic, "failed_checks", "hard constraints failed: %v", eval.HardFailed)
			}
			return nil
		}
	}
	policy := opts.Policy
	if t.AttemptTimeout > 0 {
		policy.AttemptTimeout = t.AttemptTimeout
	}
	if opts.OnEvent != nil {
		policy.OnAttempt = func(a recovery.Attempt) {
			if a.Outcome == recovery.OutcomeRetry || a.Outcome == recovery.OutcomeAlternative {
				emit(opts, Event{Agent: name, Status: Retrying, Attempt: a.N + 1, Elapsed: now().Sub(start)})
			}
		}
	}
	out := policy.Run(actx, t.Agent, req, accept)
	end := now()
	fill(r, out, t)
	r.FinishedAt = end.UTC()
	r.ExecMS = end.Sub(start).Milliseconds()
	if r.TTVms == 0 {
		r.TTVms, r.TTVSource = r.ExecMS, "measured"
	}
	if r.HasOutput() && eval.Verdicts != nil && evalOutput == r.Output {
		r.Checks = eval
	}
	return r
}

// fill copies a recovery outcome into r.
func fill(r *Result, out recovery.Outcome, t Task) {
	resp := out.Response
	r.Output = resp.Output
	r.OutputSHA256 = SHA256Hex(resp.Output)
	r.Raw, r.Stderr, r.Signals = resp.Raw, resp.Stderr, resp.Signals
	if resp.Model != "" {
		r.Model = resp.Model
	}
	if t.Provider == "command" {
		code := resp.ExitCode
		r.ExitCode = &code
	}
	if resp.TTV > 0 {
		r.TTVms, r.TTVSource = resp.TTV.Milliseconds(), "agent"
	}
	r.Attempts, r.Usage = out.Attempts, out.Usage
	if t.Price != nil {
		r.CostUSD = t.Price(out.Usage)
	}
	r.Analysis, r.BudgetExhausted = out.Analysis, out.BudgetExhausted
	switch {
	case out.Err == nil:
		r.Status = Succeeded
	case out.Status == recovery.OutcomeCancelled:
		r.Status = Cancelled
	case out.Escalated:
		r.Status, r.EscalationReason = Escalated, out.EscalationReason
	default:
		r.Status = Failed
	}
	if out.Err != nil {
		r.Error = out.Err.Error()
		r.Class = string(agent.ClassOf(out.Err))
		var ae *agent.Error
		if errors.As(out.Err, &ae) {
			r.Reason = ae.Reason
		}
		// A failed attempt's partial output is kept in the file but is
		// not a candidate unless the agent succeeded or only its checks
		// failed (the output is whole, just not admissible).
		if r.Reason != "failed_checks" {
			r.Output, r.OutputSHA256 = "", SHA256Hex("")
			if resp.Output != "" {
				r.Raw = resp.Output
			}
		}
	}
}

func emit(opts Options, ev Event) {
	if opts.OnEvent != nil {
		opts.OnEvent(ev)
	}
}
