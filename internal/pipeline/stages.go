package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/stages"
	"github.com/optr-dev/optr/internal/status"
)

// stagesMode is a staged handoff pipeline (architecture §4.10): each stage runs
// after the one before it handed off, none is ever skipped. Package stages
// runs the chain; this adapter hands it the run's agents, recovery, watcher
// and constraints, shows the stages as they change, and carries the
// outcome into the report: one result per stage that ran, the last one
// checked and selected, a failed stage's escalation, the ledger members.
type stagesMode struct {
	traits   Traits
	name     string
	pipeline config.Pipeline
	// startAt is the stage the chain starts at: 0, or the failed stage
	// when a HICCUP checkpoint's Proceed retries it (Retried).
	startAt int
	out     *stages.Outcome
	// results are the stages that ran, as results (stageResults).
	results []*executor.Result
}

func (m *stagesMode) Traits() Traits { return m.traits }

func (m *stagesMode) Run(ctx context.Context, x *Execution) error {
	// One stage's agent at a time, through stages.Run, which does not
	// tell when its requests are out: what waits for them goes now.
	x.launch()
	p, rep := x.Prepared, x.rep
	cfg := p.Spec.Config
	feedback, err := m.feedback(p.Spec)
	if err != nil {
		return err
	}
	board := stages.NewBoard(m.pipeline.Agents)
	o, err := stages.Run(ctx, stages.Input{
		Config:         stages.ConfigFrom(m.name, m.pipeline),
		Request:        x.Options.Request,
		Run:            x.Run,
		Task:           x.Task,
		Constraints:    x.Options.Constraints,
		OnNoAdmissible: cfg.Selection.OnNoAdmissible,
		Policy:         x.Options.Policy,
		Supervise:      x.Options.Supervise,
		OnEvent: func(e stages.Event) {
			board.Apply(e)
			if x.Options.OnEvent != nil {
				x.Options.OnEvent(stageEvent(e))
			}
		},
		Now:      x.Options.Now,
		Logger:   logger(p.deps, m.name),
		Feedback: feedback,
		StartAt:  m.startAt,
	})
	if o == nil {
		return err
	}
	m.out = o
	if o.Escalation != nil {
		// Recorded like the watcher's own decisions (blackboard,
		// decision.md, watcher-log.md, ceo-inbox), and through it in the
		// ledger and the escalation comment.
		x.Watcher.Escalate(*o.Escalation, len(o.Stages[o.ResumeAt].Attempts))
	}
	rep.Results = stageResults(o)
	rep.ModeFields = o.LedgerFields()
	lines := board.Lines()
	rep.Details, rep.DetailsText = stages.Checklist(lines), stages.Text(lines)
	m.results = rep.Results
	return err
}

// Candidates implements Nominator: the last stage, checked, when the
// chain completed with an output; none otherwise.
func (m *stagesMode) Candidates() []*executor.Result {
	if o := m.out; o == nil || o.Output == "" || o.Last().Status != status.Completed {
		return nil
	}
	return m.results[len(m.results)-1:]
}

// Conclude implements Concluder: the chain's verdict is the run's status;
// a completed chain's last stage is π* (its output is result.md).
func (m *stagesMode) Conclude() Conclusion {
	o := m.out
	if o == nil {
		return Conclusion{Status: status.Failed, Message: "the stages did not start"}
	}
	c := Conclusion{Message: o.Message}
	switch o.Status {
	case status.Completed:
		c.Status = status.Completed
		if o.Output != "" {
			c.Selected = o.Last().Stage
		}
	case status.Paused:
		c.Status, c.Trigger = status.Paused, o.Trigger
	default:
		c.Status = status.Failed
	}
	return c
}

// Retry implements Retrier: a chain paused at a HICCUP checkpoint (a stage
// failed, restarts or none) retries the failed stage from its saved input
// and runs the later ones; the stages before it are not run again. What
// carrying on reads back is the stage files up to the failed one: the
// records and the outputs handed off.
func (m *stagesMode) Retry() (Retry, []checkpoint.Option, bool) {
	o := m.out
	if o == nil || o.Status != status.Paused || o.Trigger != checkpoint.TriggerHiccup || o.ResumeAt < 0 {
		return Retry{}, nil, false
	}
	r := Retry{At: o.ResumeAt}
	if o.ResumeAt == 0 && m.pipeline.Feedback {
		r.Files = append(r.Files, stages.FeedbackPath) // what the first stage got
	}
	for i, s := range m.pipeline.Agents[:o.ResumeAt+1] {
		r.Files = append(r.Files, stages.RecordPath(i, s))
		if i < o.ResumeAt {
			r.Files = append(r.Files, stages.OutputPath(i, s))
		}
	}
	return r, o.HiccupOptions(), true
}

// Retried implements Retrier: the chain again, from the stage r retries.
func (m *stagesMode) Retried(r Retry) Mode {
	c := *m
	c.startAt, c.out, c.results = r.At, nil, nil
	return &c
}

// feedback is what the first stage gets with feedback: true: the last
// stage's output of this pipeline's previous completed run, found through
// the ledger and checked against the hash the ledger recorded.
func (m *stagesMode) feedback(spec Spec) (*stages.Feedback, error) {
	if !m.pipeline.Feedback {
		return nil, nil
	}
	f := stages.FeedbackFinder{Pipeline: m.name}
	if err := ledger.ScanFile(spec.LedgerPath, f.Visit); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("find the feedback of pipeline %s in the ledger: %w", m.name, err)
	}
	src, ok := f.Source()
	if !ok {
		return nil, nil // the pipeline's first completed run is yet to come
	}
	data, err := os.ReadFile(filepath.Join(spec.Datalake, filepath.FromSlash(src.Path)))
	if err != nil {
		return nil, fmt.Errorf("read the feedback of pipeline %s (run %s): %w", m.name, src.Run, err)
	}
	if got := executor.SHA256Hex(string(data)); got != src.SHA256 {
		return nil, fmt.Errorf("the feedback of pipeline %s (%s) does not match the ledger: sha256 %s, recorded %s", m.name, src.Path, got, src.SHA256)
	}
	return &stages.Feedback{Source: src, Content: string(data)}, nil
}

// stageResults are the stages that ran as results, in order: the score
// table, the agent lines and the ledger's results. The last stage's output
// and checks are the run's; earlier outputs are in stages/NN_<stage>.out.
func stageResults(o *stages.Outcome) []*executor.Result {
	var out []*executor.Result
	for i, rec := range o.Stages {
		if rec.Status == status.NotStarted {
			continue
		}
		r := &executor.Result{
			Agent: rec.Stage, Provider: rec.Provider, Status: stageStatus(rec.Status),
			OutputSHA256: rec.OutputSHA256, ExecMS: rec.ExecMS, Restarts: rec.Restarts,
			Reason: rec.Reason, Error: rec.Error, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt,
		}
		if i == len(o.Stages)-1 && rec.Status == status.Completed {
			r.Output, r.Checks = o.Output, o.Checks
		}
		out = append(out, r)
	}
	return out
}

func stageStatus(s status.Status) status.Status {
	switch s {
	case status.HandedOff, status.Completed:
		return status.Succeeded
	case status.Escalated:
		return status.Escalated
	case status.Cancelled:
		return status.Cancelled
	}
	return status.Failed
}

// stageEvent is a stage's state change as the progress displays take an
// agent's.
func stageEvent(e stages.Event) executor.Event {
	s := status.Running
	switch e.State {
	case stages.StateReady:
		s = status.Queued
	case stages.StateCrashed:
		s = status.Retrying
	case stages.StateHandedOff, stages.StateDone:
		s = status.Succeeded
	case stages.StateFailed:
		s = status.Failed
	}
	return executor.Event{Agent: e.Stage, Status: s, Elapsed: e.Elapsed, Attempt: e.Attempt}
}
