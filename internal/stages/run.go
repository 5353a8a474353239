package stages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// Run carries the pipeline from in.StartAt to its last stage, or to the
// stage that fails, and returns what happened. A stage's failure is an
// Outcome (failed, or paused at a HICCUP checkpoint), never an error: the
// error reports bad input (checked before any stage starts), a stage file
// that could not be written, or a cancelled ctx; the Outcome returned with
// it still holds the records so far.
func Run(ctx context.Context, in Input) (*Outcome, error) {
	r, err := newRunner(in)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// runner is the state of one Run.
type runner struct {
	in    Input
	log   *slog.Logger
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	out   *Outcome
}

func newRunner(in Input) (*runner, error) {
	c := in.Config
	switch {
	case len(c.Stages) < 2:
		return nil, fmt.Errorf("pipeline %q has %d stages; a stages pipeline needs at least 2", c.Pipeline, len(c.Stages))
	case in.Run == nil:
		return nil, errors.New("stages: no run directory")
	case in.Task == nil:
		return nil, errors.New("stages: no agent factory (Input.Task)")
	case in.StartAt < 0 || in.StartAt >= len(c.Stages):
		return nil, fmt.Errorf("cannot start at stage %d of pipeline %q, which has %d stages", in.StartAt+1, c.Pipeline, len(c.Stages))
	case c.Restarts < 0:
		return nil, fmt.Errorf("pipeline %q: restarts is %d; it must not be negative", c.Pipeline, c.Restarts)
	}
	for i, s := range c.Stages {
		if err := datalake.ValidateAgent(s); err != nil {
			return nil, fmt.Errorf("pipeline %q stage %d: %w", c.Pipeline, i+1, err)
		}
		if slices.Index(c.Stages, s) != i {
			return nil, fmt.Errorf("pipeline %q names stage %q twice; each stage runs once", c.Pipeline, s)
		}
	}
	if f := in.Feedback; f != nil && executor.SHA256Hex(f.Content) != f.Source.SHA256 {
		return nil, fmt.Errorf("the feedback from run %s (%s) does not hash to the sha256 its ledger entry records (%s): it was changed after that run",
			f.Source.Run, f.Source.Path, f.Source.SHA256)
	}
	r := &runner{in: in, log: in.Logger, now: in.Now, sleep: in.Sleep}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.sleep == nil {
		r.sleep = timerSleep
	}
	return r, nil
}

func (r *runner) run(ctx context.Context) (*Outcome, error) {
	c := r.in.Config
	r.out = &Outcome{Pipeline: c.Pipeline, Stages: make([]*Record, len(c.Stages)), ResumeAt: -1, Started: r.now().UTC()}
	for i, s := range c.Stages {
		r.out.Stages[i] = &Record{Index: i + 1, Stage: s, Agent: s, Status: status.NotStarted, Attempts: []Attempt{}, Frames: []Frame{}}
	}
	prev, err := r.committed()
	if err != nil {
		return nil, err
	}
	feedback, err := r.feedbackFile()
	if err != nil {
		return nil, err
	}
	for i := range c.Stages[:r.in.StartAt] {
		r.emit(Event{Index: i, Stage: c.Stages[i], State: StateHandedOff})
	}
	for i := r.in.StartAt + 1; i < len(c.Stages); i++ {
		r.emit(Event{Index: i, Stage: c.Stages[i], State: StateReady})
	}
	for i := r.in.StartAt; i < len(c.Stages); i++ {
		rec, err := r.stage(ctx, i, prev, feedback)
		if err != nil {
			r.out.Finished = r.now().UTC()
			return r.out, err
		}
		if rec.Status != status.HandedOff && rec.Status != status.Completed {
			r.stopAt(i)
			return r.out, nil
		}
		prev = &Committed{Stage: rec.Stage, Output: rec.output}
	}
	r.finish(cost.ForAgent(ctx, prev.Stage), prev.Output) // the last stage's result pays for its checks
	return r.out, nil
}

// committed returns the output the first stage to run gets: nil for the
// first stage, else the committed output of the stage before StartAt.
func (r *runner) committed() (*Committed, error) {
	at := r.in.StartAt
	if at == 0 {
		return nil, nil
	}
	done := r.in.Committed
	if done == nil {
		var err error
		if done, err = LoadCommitted(r.in.Run, r.in.Config.Stages, at); err != nil {
			return nil, err
		}
	}
	if len(done) != at {
		return nil, fmt.Errorf("resume at stage %d needs the outputs of the %d stages before it, got %d", at+1, at, len(done))
	}
	for i, d := range done {
		if d.Stage != r.in.Config.Stages[i] {
			return nil, fmt.Errorf("committed output %d is of stage %q, but stage %d is %q", i+1, d.Stage, i+1, r.in.Config.Stages[i])
		}
		rec := r.out.Stages[i]
		rec.Status, rec.output = status.HandedOff, d.Output
		rec.Handoff = r.in.Config.Stages[i+1]
		rec.OutputSHA256 = executor.SHA256Hex(d.Output)
		if old, err := readRecord(r.in.Run, i, d.Stage); err == nil && old != nil {
			old.output = d.Output
			r.out.Stages[i] = old
		}
	}
	return &done[at-1], nil
}

// feedbackFile writes the feedback into the run directory, once, and
// returns its absolute path; empty without feedback. A first stage that a
// resumed checkpoint retries gets the feedback it got the first time: the
// run's file, never rewritten.
func (r *runner) feedbackFile() (string, error) {
	if !r.in.Config.Feedback || r.in.Feedback == nil || r.in.StartAt > 0 {
		return "", nil
	}
	path := r.in.Run.Path(FeedbackPath)
	if kept, err := os.ReadFile(path); err == nil {
		r.in.Feedback = &Feedback{Source: r.in.Feedback.Source, Content: string(kept)}
		return path, nil
	}
	err := r.in.Run.WriteFile(FeedbackPath, []byte(r.in.Feedback.Content))
	if err != nil {
		return "", fmt.Errorf("write the feedback for the first stage: %w", err)
	}
	return path, nil
}

// stopAt ends the run at failed stage i: the escalation, and a HICCUP
// checkpoint or a failed run.
func (r *runner) stopAt(i int) {
	rec := r.out.Stages[i]
	r.out.ResumeAt = i
	r.out.Escalation = r.escalation(rec)
	r.out.Message = fmt.Sprintf("stage %s %s; the stages after it did not run", rec.Stage, failedHow(rec))
	switch {
	case r.in.OnNoAdmissible != config.NoAdmissibleCheckpoint:
		r.out.Status = status.Failed
	case rec.Reason == reasonBudget:
		r.out.Status, r.out.Trigger = status.Paused, checkpoint.TriggerBudget
	default:
		r.out.Status, r.out.Trigger = status.Paused, checkpoint.TriggerHiccup
	}
	r.out.Finished = r.now().UTC()
}

// finish checks the last stage's output against the run's constraints.
func (r *runner) finish(ctx context.Context, output string) {
	o := r.out
	o.Output, o.OutputSHA256 = output, executor.SHA256Hex(output)
	o.Checks = check.Evaluate(ctx, r.in.Constraints, output)
	o.Finished = r.now().UTC()
	switch {
	case o.Checks.Admissible:
		o.Status = status.Completed
	case r.in.OnNoAdmissible == config.NoAdmissibleCheckpoint:
		o.Status, o.Trigger = status.Paused, checkpoint.TriggerNoAdmissible
		o.Message = fmt.Sprintf("the last stage's output fails hard constraints %v; a human must decide", o.Checks.HardFailed)
	case r.in.OnNoAdmissible == config.NoAdmissibleLeastBad:
		o.Status = status.Completed
		o.Message = fmt.Sprintf("the last stage's output fails hard constraints %v; kept anyway (selection.on-no-admissible: least-bad)", o.Checks.HardFailed)
	default:
		o.Status = status.Failed
		o.Message = fmt.Sprintf("the last stage's output fails hard constraints %v (selection.on-no-admissible: fail)", o.Checks.HardFailed)
	}
}

func (r *runner) emit(e Event) {
	if r.in.OnEvent != nil {
		r.in.OnEvent(e)
	}
}

// timerSleep waits for d or until ctx is done.
func timerSleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
