package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/status"
)

// runAgent runs t as result name until it succeeds, fails for good, or the
// run ends: a launch stopped with escalation.ErrRestart, or a failure the
// watcher answers with restart, is relaunched with fresh state (a new
// recovery run and a new Timeout), at most MaxRestarts times, and keeps the
// attempts of the launches before it. A failure is reported to Failed with
// the run's outlook (at is the task's index, -1 for the synthesis step;
// tried the agents that tried the task); the escalation it returns comes
// back with the result.
func (x *execution) runAgent(t Task, name, replaces string, req agent.Request, at int, tried []string) (*Result, *escalation.Escalation) {
	start := x.now()
	r := &Result{Agent: name, Provider: t.Provider, Model: t.Model, StartedAt: start.UTC(), Replaces: replaces}
	if t.Configured != name {
		r.Configured = t.Configured
	}
	agentName := t.Agent.Name()
	x.mu.Lock()
	if replaces == "" { // a spare was marked running when it was reserved
		x.running[agentName]++
	}
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		x.running[agentName]--
		x.mu.Unlock()
	}()

	if err := x.ctx.Err(); err != nil {
		r.Status, r.Error = status.Cancelled, fmt.Sprintf("not started: %v", context.Cause(x.ctx))
		r.OutputSHA256 = SHA256Hex("")
		r.FinishedAt, r.TTVSource = start.UTC(), TTVMeasured
		return r, nil
	}
	x.emit(Event{Agent: name, Status: status.Running, Attempt: 1})
	var esc *escalation.Escalation
	for {
		out, l := x.launch(t, name, req, start, len(r.Attempts))
		fill(r, out, t)
		if r.HasOutput() && l.eval.Verdicts != nil && l.evalSHA256 == r.OutputSHA256 {
			r.Checks = l.eval
		}
		relaunch := false
		switch {
		case out.Err == nil:
		case l.restart && r.Restarts < x.opts.MaxRestarts && x.ctx.Err() == nil:
			relaunch = true
		case r.Status == status.Failed || r.Status == status.Escalated:
			if x.opts.Failed == nil {
				break
			}
			// Failed before it is reported: an agent failing at the same
			// time sees it so while the watcher decides about it.
			x.setState(at, status.Failed)
			partial := r.Partial() != ""
			e := x.opts.Failed(escalation.Failure{Agent: name, Partial: partial, Err: l.err,
				Attempts: len(r.Attempts), Replaces: replaces, Outlook: func() escalation.Outlook { return x.outlook(at, tried, partial) }})
			r.Decision, r.DecisionID, esc = string(e.Decision.Action), e.ID, &e
			relaunch = e.Decision.Action == escalation.Restart && r.Restarts < x.opts.MaxRestarts && x.ctx.Err() == nil
			if relaunch {
				x.setState(at, status.Running)
			}
		}
		l.done()
		if !relaunch {
			break
		}
		r.Restarts++
		r.Decision, r.DecisionID, esc = "", "", nil
		x.emit(Event{Agent: name, Status: status.Retrying, Attempt: len(r.Attempts) + 1, Elapsed: x.now().Sub(start)})
	}
	end := x.now()
	r.FinishedAt = end.UTC()
	r.ExecMS = end.Sub(start).Milliseconds()
	if r.TTVms == 0 {
		r.TTVms, r.TTVSource = r.ExecMS, TTVMeasured
	}
	return r, esc
}

// launched is how one launch ended, beyond its recovery outcome.
type launched struct {
	// restart: the watcher stopped the launch to have it relaunched.
	restart bool
	// err is the failure to report, with its cause.
	err error
	// done ends the launch's supervision.
	done func()
	// eval is the checks' verdict on the output whose SHA-256 is
	// evalSHA256, when they ran during recovery.
	eval       check.Evaluation
	evalSHA256 string
}

// launch runs one launch of t: a fresh recovery run under its own Timeout
// and supervision. Attempt numbers continue from prior.
func (x *execution) launch(t Task, name string, req agent.Request, start time.Time, prior int) (recovery.Outcome, launched) {
	// Every call made for this result — attempts, analyses, checks during
	// recovery — is charged to it.
	actx, cancelTimeout := cost.ForAgent(x.ctx, name), context.CancelFunc(func() {})
	if t.Timeout > 0 {
		actx, cancelTimeout = context.WithTimeout(actx, t.Timeout)
	}
	l := launched{done: cancelTimeout}
	var progress func(agent.Progress)
	if x.opts.Supervise != nil {
		var done func()
		actx, progress, done = x.opts.Supervise(actx, name)
		l.done = func() { done(); cancelTimeout() }
	}
	req.Progress = progress
	// The task's own signal (its wave's), then the caller's, once per
	// launch.
	if sent := req.Sent; sent != nil || x.opts.Sent != nil {
		req.Sent = sync.OnceFunc(func() {
			if sent != nil {
				sent()
			}
			if x.opts.Sent != nil {
				x.opts.Sent(name)
			}
		})
	}

	var eval check.Evaluation
	var evalSHA256 string
	var accept func(context.Context, agent.Response) error
	if x.opts.CheckDuringRecovery && len(x.opts.Constraints) > 0 {
		accept = func(ctx context.Context, resp agent.Response) error {
			evalSHA256 = SHA256Hex(resp.Output)
			if resp.Spool != nil {
				evalSHA256 = resp.Spool.SHA256
			}
			eval = x.evaluate(check.WithDir(ctx, t.Dir), resp.Output, resp.Spool, evalSHA256)
			if !eval.Admissible {
				return agent.Errorf(agent.Systematic, recovery.ReasonFailedChecks, "hard constraints failed: %v", eval.HardFailed)
			}
			return nil
		}
	}
	policy := x.opts.Policy
	if t.AttemptTimeout > 0 {
		policy.AttemptTimeout = t.AttemptTimeout
	}
	policy.OnAttempt = func(a recovery.Attempt) {
		if progress != nil {
			progress(agent.Progress{}) // a new attempt is a sign of life
		}
		if a.Outcome == recovery.OutcomeRetry || a.Outcome == recovery.OutcomeAlternative {
			x.emit(Event{Agent: name, Status: status.Retrying, Attempt: prior + a.N + 1, Elapsed: x.now().Sub(start)})
		}
	}
	out := policy.Run(actx, t.Agent, req, accept)
	for i := range out.Attempts {
		out.Attempts[i].N += prior
	}
	l.eval, l.evalSHA256 = eval, evalSHA256
	l.err = out.Err
	if out.Status == recovery.OutcomeCancelled && x.ctx.Err() == nil {
		// The run goes on, so the watcher or the launch's own Timeout
		// stopped this agent: a restart, or a failure to report.
		cause := context.Cause(actx)
		switch {
		case errors.Is(cause, escalation.ErrAbort):
		case errors.Is(cause, escalation.ErrRestart):
			l.restart = true
			l.err = agent.Errorf(agent.Transient, "stuck", "%s showed no progress and was stopped to restart it: %w", name, cause)
		case errors.Is(cause, escalation.ErrStuck):
			l.err = agent.Errorf(agent.Transient, "stuck", "%s showed no progress and was stopped: %w", name, cause)
		case errors.Is(cause, context.DeadlineExceeded):
			l.err = agent.Errorf(agent.Transient, "timeout", "%s gave no result within %s (agents.%s.timeout): %w", name, t.Timeout, t.Agent.Name(), cause)
		}
		if l.err != out.Err {
			out.Err, out.Status = l.err, ""
		}
	}
	return out, l
}
