package pipeline

import (
	"context"
	"path/filepath"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/delegate"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// delegateMode is a delegate pipeline (architecture §4.9): the coordinator plans,
// the specialists report in parallel, the hard barrier decides. Package
// delegate takes the ten steps; this adapter hands it the run's agents,
// recovery, watcher and constraints, and carries its outcome into the
// report: the results (coordinator first), the ledger members, the spec
// folder as files to record, OVERVIEW.md as the result file.
type delegateMode struct {
	traits   Traits
	pipeline config.Pipeline
	out      *delegate.Outcome
	// run makes the outcome; nil is delegate.Run.
	run func(context.Context, delegate.Input) (*delegate.Outcome, error)
}

// DelegateMode is the delegate mode (traits t) of pl whose outcome comes
// from run instead of delegate.Run — a matrix gather assembles it from its
// tasks' results (delegate.Assemble) — and is carried into the report
// exactly as a one-job delegation's.
func DelegateMode(t Traits, pl config.Pipeline, run func(context.Context, delegate.Input) (*delegate.Outcome, error)) Mode {
	return &delegateMode{traits: t, pipeline: pl, run: run}
}

// DelegateInput is the delegate.Input of pipeline pl in this execution:
// the run's agents, recovery, watcher, constraints and redaction.
func (x *Execution) DelegateInput(pl config.Pipeline) delegate.Input {
	p := x.Prepared
	return delegate.Input{
		Config:   p.Spec.Config,
		Pipeline: pl,
		Intent:   p.Spec.Intent,
		Workflow: p.Spec.Workflow,
		RunID:    p.Spec.RunID,
		Datalake: p.Spec.Datalake,
		Dir:      p.Spec.Dir,
		Task:     x.Task,
		Exec:     x.Options,
		Redact:   p.agents.secret.String,
		Choose:   x.Choose,
	}
}

func (m *delegateMode) Traits() Traits { return m.traits }

func (m *delegateMode) Run(ctx context.Context, x *Execution) error {
	rep := x.rep
	run := m.run
	if run == nil {
		run = delegate.Run
	}
	o, err := run(ctx, x.DelegateInput(m.pipeline))
	if o == nil {
		return err
	}
	m.out = o
	rep.Results = o.Results
	rep.ModeFields = o.Ledger
	rep.Details, rep.DetailsText = o.Summary, o.SummaryText
	// Only what the delegation keeps of the spec folder is recorded: the
	// specialists may write its reports' folder.
	files, refused, ferr := o.Keep(x.Prepared.agents.secret.String)
	if ferr != nil && err == nil {
		err = ferr
	}
	x.Prepared.logRefused(refused, "not committed:", func(rel string) string {
		return rep.Spec.DisplayPath(filepath.Join(o.SpecDir, filepath.FromSlash(rel)))
	})
	rep.ExtraFiles = append(rep.ExtraFiles, files...)
	return err
}

// Conclude implements Concluder: the barrier's verdict is the run's status,
// OVERVIEW.md its result, and nothing is selected (every valid report
// counts).
func (m *delegateMode) Conclude() Conclusion {
	if m.out == nil {
		return Conclusion{Status: status.Failed, Message: "the delegate run did not start"}
	}
	c := Conclusion{Status: status.Failed, Message: m.out.Message, Result: m.out.Overview}
	if m.out.Status == status.Completed { // with a warning or without
		c.Status = status.Completed
	}
	return c
}

// Candidates implements Nominator: the score table ranks the specialists'
// reports; the plan is not a result to select.
func (m *delegateMode) Candidates() []*executor.Result {
	if m.out == nil {
		return nil
	}
	var out []*executor.Result
	for _, r := range m.out.Results {
		if r != m.out.Coordinator {
			out = append(out, r)
		}
	}
	return out
}
