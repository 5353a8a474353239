package pipeline

import (
	"context"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
)

// Mode runs the agents of a prepared run inside the run the Driver set up
// (directory, resolved workflow, watcher). select fans the intent out to
// every agent; delegate, stages and a matrix gather bring their own. A
// mode fills x.Report: Results always (the score table and the agent
// files), Selection when it selects (else the driver selects over
// Results), and for its own members Mode, ModeFields and ExtraFiles. It
// may conclude the run itself through Concluder.
type Mode interface {
	// Name is the mode's name in the ledger (config.ModeSelect, …).
	Name() string
	// Run runs the agents. An error ends the run; an agent's failure is a
	// result, not an error. escalation.ErrAbort (the watcher aborted)
	// finishes the run as failed with every result kept.
	Run(ctx context.Context, x *Execution) error
}

// Concluder is a Mode that decides a run's status itself (a delegation's
// threshold, a stage chain) instead of by the selection rules.
type Concluder interface {
	// Conclude sets rep's Status, Trigger, Selected, Message and, when the
	// result is a file of the mode's, ResultPath.
	Conclude(rep *Report)
}

// Execution is what a Mode works with.
type Execution struct {
	// Prepared is the resolved run: spec, agents, constraints.
	Prepared *Prepared
	// Report is the run being filled.
	Report *Report
	// Options are the executor options of a select fan-out over every
	// agent: Tasks, the base Request, recovery Policy, Constraints,
	// watcher hooks, Sink (agent-outputs/<agent>.json), OnEvent. A mode
	// changes what it must (Tasks, Request) and keeps the rest, so that
	// recovery, the watcher and budgets apply to its agents alike.
	Options executor.Options
}

// Task returns the executor task of the configured agent name (wrapped
// so that no secret it prints is kept): the select fan-out's own, in its
// worktree when agents change code, or else built anew.
func (x *Execution) Task(name string) (executor.Task, error) {
	for _, t := range x.Options.Tasks {
		if t.Agent.Name() == name {
			return t, nil
		}
	}
	ts, err := x.Prepared.agents.tasks([]string{name})
	if err != nil {
		return executor.Task{}, err
	}
	return ts[0], nil
}

// selectMode is select (DESIGN §2): every agent on the same intent, π*
// chosen by the selection rules.
type selectMode struct{}

func (selectMode) Name() string { return config.ModeSelect }

func (selectMode) Run(ctx context.Context, x *Execution) error {
	results, err := executor.Run(ctx, x.Options)
	x.Report.Results = results
	return err
}
