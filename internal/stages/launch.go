package stages

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/frames"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/recovery"
)

// Reasons of stage failures that are not an agent's own.
const (
	reasonHandoffMissing = "handoff_missing"
	reasonErrorFrame     = "error_frame"
	reasonStuck          = "stuck"
	reasonTimeout        = "timeout"
	reasonAborted        = "aborted"
	reasonBudget         = "budget_exhausted"
	reasonCancelled      = "cancelled"
)

// maxErrorText bounds an attempt's error text.
const maxErrorText = 2000

// attemptEnding is what one launch of a stage means for the pipeline.
type attemptEnding int

const (
	attemptHandedOff attemptEnding = iota // the next stage may start
	attemptDone                           // the last stage finished
	attemptCrashed                        // restart, or escalate
	attemptFailed                         // no restart fixes it
	attemptCancelled                      // the run was cancelled
)

// launch is one launch of a stage and how it ended.
type launch struct {
	provider string
	resp     agent.Response
	err      error
	// cause is why the launch's own context ended (watcher, timeout)
	// while the run's went on; nil otherwise.
	cause   error
	budget  bool
	at      Attempt
	ignored []string
}

// launch runs one attempt of a stage under its Timeout and supervision.
func (r *runner) launch(ctx context.Context, task executor.Task, name string, req agent.Request, n int) launch {
	lctx, cancel := cost.ForAgent(ctx, name), context.CancelFunc(func() {}) // the stage's result pays for its calls
	if task.Timeout > 0 {
		lctx, cancel = context.WithTimeout(lctx, task.Timeout)
	}
	defer cancel()
	if r.in.Supervise != nil {
		var done func()
		lctx, req.Progress, done = r.in.Supervise(lctx, name)
		defer done()
	}
	start := r.now()
	out := r.policy(task).Run(lctx, task.Agent, req, nil)
	l := launch{provider: task.Provider, resp: out.Response, err: out.Err, budget: out.BudgetExhausted}
	l.at = Attempt{N: n, Start: start.UTC(), DurationMS: r.now().Sub(start).Milliseconds()}
	if len(out.Attempts) > 1 {
		l.at.Tries = len(out.Attempts)
	}
	if task.Provider == config.ProviderCommand {
		code := out.Response.ExitCode
		l.at.ExitCode = &code
	}
	if lctx.Err() != nil && ctx.Err() == nil {
		l.cause = context.Cause(lctx)
	}
	if k := len(out.Attempts); k > 0 && out.Err != nil {
		l.at.Reason, l.at.Error = out.Attempts[k-1].Reason, out.Attempts[k-1].Error
	}
	return l
}

// policy is the recovery policy of one launch: no Level-2 analysis (a
// crash is answered by a restart), and one attempt for command stages.
func (r *runner) policy(task executor.Task) recovery.Policy {
	p := r.in.Policy
	p.Analyzer, p.MaxAlternatives, p.OnAttempt = nil, 0, nil
	if task.Provider == config.ProviderCommand {
		p.Attempts = 1
	}
	if task.AttemptTimeout > 0 {
		p.AttemptTimeout = task.AttemptTimeout
	}
	p.Clock = clock{now: r.now, sleep: r.sleep}
	return p
}

// judge applies §4.10's rules to a launch of stage i.
func (r *runner) judge(ctx context.Context, i int, l *launch) attemptEnding {
	stages := r.in.Config.Stages
	name, next := stages[i], ""
	if i+1 < len(stages) {
		next = stages[i+1]
	}
	at := &l.at
	fail := func(reason, format string, args ...any) {
		at.Reason, at.Error = reason, markdown.Truncate(fmt.Sprintf(format, args...), maxErrorText)
	}
	switch {
	case ctx.Err() != nil:
		fail(reasonCancelled, "the run was cancelled: %v", context.Cause(ctx))
		return attemptCancelled
	case errors.Is(l.cause, escalation.ErrAbort):
		fail(reasonAborted, "%v", l.cause)
		return attemptFailed
	case errors.Is(l.cause, escalation.ErrRestart), errors.Is(l.cause, escalation.ErrStuck):
		at.Crash = true
		fail(reasonStuck, "stage %s showed no progress and was stopped (%v)", name, l.cause)
		return attemptCrashed
	case errors.Is(l.cause, context.DeadlineExceeded):
		at.Crash = true
		fail(reasonTimeout, "stage %s gave no result within agents.%s.timeout", name, name)
		return attemptCrashed
	case l.budget:
		fail(reasonBudget, "%v", recovery.ErrBudgetExhausted)
		return attemptFailed
	case l.err != nil && agent.ClassOf(l.err) == agent.Fatal:
		if at.Error == "" {
			fail("fatal", "%v", l.err)
		}
		return attemptFailed
	case l.err != nil:
		at.Crash = true
		if at.Error == "" {
			fail("error", "%v", l.err)
		}
		return attemptCrashed
	}
	if e, ok := lastErrorFrame(l.resp.Signals); ok {
		at.Crash = true
		fail(reasonErrorFrame, "stage %s sent an ERROR frame: %s", name, e)
		return attemptCrashed
	}
	handed := false
	for _, s := range l.resp.Signals {
		if s.Kind != string(frames.Handoff) {
			continue
		}
		if next != "" && s.Payload == next {
			handed = true
			continue
		}
		l.ignored = append(l.ignored, s.Payload)
		r.log.Warn("a stage handed off to a stage that is not the next one; the handoff is ignored",
			"stage", name, "handoff", s.Payload, "next", next)
	}
	switch {
	case next == "":
		return attemptDone
	case handed || l.provider != config.ProviderCommand:
		return attemptHandedOff
	}
	fail(reasonHandoffMissing, "TASK_ERROR: %s - stage %s exited 0 without handing off to %s: print <<<OPTR:HANDOFF:%s>>> when its work is done",
		reasonHandoffMissing, name, next, next)
	return attemptFailed
}

// lastErrorFrame returns the payload of the last ERROR frame in sigs.
func lastErrorFrame(sigs []agent.Signal) (string, bool) {
	for k := len(sigs) - 1; k >= 0; k-- {
		if sigs[k].Kind == string(frames.Error) {
			return markdown.Truncate(sigs[k].Payload, 500), true
		}
	}
	return "", false
}

// clock adapts Now and Sleep to recovery.Clock.
type clock struct {
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
}

func (c clock) Now() time.Time { return c.now() }

func (c clock) Sleep(ctx context.Context, d time.Duration) error { return c.sleep(ctx, d) }
