package pipeline

import (
	"context"
	"fmt"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// Mode runs the agents of a prepared run inside the run the Driver set up
// (directory, resolved workflow, watcher). select fans the intent out to
// every agent; delegate, stages and a matrix gather bring their own. A
// mode hands its results to the run (Execution.SetResults: the score
// table, the agent files, the ledger's results) and writes its own files
// in the run's directory (Execution.Run); the run's report is the
// driver's, which no mode touches. A mode never selects: the driver
// chooses π* once the mode ran (choose.go), among the results the mode
// nominates (Nominator; all of them otherwise). It may conclude the run
// itself through Concluder.
type Mode interface {
	// Traits are what the driver and the matrix know of the mode.
	Traits() Traits
	// Run runs the agents. An error ends the run; an agent's failure is a
	// result, not an error. escalation.ErrAbort (the watcher aborted)
	// finishes the run as failed with every result kept.
	Run(ctx context.Context, x *Execution) error
}

// Traits are what the driver and the matrix know of a mode besides running
// it. Each mode declares its own, so nothing asks which mode is running:
// the code that differs between modes reads a trait, and the table of
// modes (modes, below) is the one place that knows each mode by name.
type Traits struct {
	// Name is the mode's name in the config and the ledger
	// (config.ModeSelect, …).
	Name string
	// Worktrees: every agent works on the intent by itself, so agents that
	// change code can each have a worktree (changes.mode, architecture §4.12);
	// a run of any other mode refuses code changes.
	Worktrees bool
	// Gathers: the mode runs no agent in this process but hands over
	// results that agents produced and were checked elsewhere (a matrix
	// gather), so the run starts no worktrees for agents (a gather starts
	// its own, Prepared.StartTrees, to run π*'s command checks again).
	Gathers bool
	// Spools: outputs too large to hold in memory wait on disk until the
	// run's files are written from them. A mode that reads outputs whole
	// (a report, a stage's input, a task's output.md) does not spool.
	Spools bool
	// ErrorLines: Execute appends an errors.jsonl line per failed result.
	// A mode that writes its own failures (a delegation, architecture §4.9 step
	// 8) does not.
	ErrorLines bool
	// Split is how `optr plan` splits a run of the mode into matrix tasks.
	Split Split
}

// Gathered are the traits of t's mode when its results are gathered from
// matrix tasks instead of run here: no agent runs, so nothing is spooled
// and no worktree is started.
func (t Traits) Gathered() Traits {
	t.Gathers, t.Spools = true, false
	return t
}

// Split is how a mode's run is split into matrix tasks (architecture §4.11).
type Split int

// The ways a run is split.
const (
	// SplitNone: the mode runs in one job only.
	SplitNone Split = iota
	// SplitAgents: one task per agent.
	SplitAgents
	// SplitTopics: the coordinator plans inside `optr plan`, and each
	// specialist invocation of its topics is a task.
	SplitTopics
)

// Concluder is a Mode that decides a run's status itself (a delegation's
// threshold, a stage chain) instead of by the selection rules.
type Concluder interface {
	// Conclude says how the run the mode ran ends.
	Conclude() Conclusion
}

// Conclusion is how a Concluder mode says its run ends.
type Conclusion struct {
	// Status is completed, paused or failed; Trigger, for a paused run,
	// says at which checkpoint.
	Status  status.Status
	Trigger checkpoint.Trigger
	// Selected is π*'s agent, "" when nothing is selected (result.md is
	// then not written).
	Selected string
	// Message says why the run failed or paused, or what to know about a
	// completed one.
	Message string
	// Result is the absolute path of the run's result when it is a file
	// of the mode's (a delegation's OVERVIEW.md); "" otherwise.
	Result string
}

// Retrier is a Mode that carries a paused run on itself when a human
// chooses Proceed: instead of selecting among the results it has, the run
// goes on from where it stopped (a stage chain paused at a HICCUP
// checkpoint retries its failed stage from its saved input and runs the
// later ones, architecture §4.10).
type Retrier interface {
	// Retry says where the run, as the mode left it paused, carries on
	// after Proceed, and the checkpoint's options that say so; ok is
	// false when Proceed only selects.
	Retry() (r Retry, options []checkpoint.Option, ok bool)
	// Retried is the mode that carries the run on from r.
	Retried(r Retry) Mode
}

// Retry is where a paused run carries on after Proceed. It is saved with
// the checkpoint, so that a later process, or a fresh job, can carry on.
type Retry struct {
	// At is the index of the step that runs again (a stage).
	At int `json:"at"`
	// Files are the run's files (relative to its directory) that carrying
	// on reads: they are read back from where the run was recorded
	// (Driver.Store) when this checkout lacks them.
	Files []string `json:"files"`
}

// modeKind is a row of the table of modes: a mode the config can name,
// its traits, and how a run of it is built.
type modeKind struct {
	traits Traits
	// build makes the mode of a run and returns the agents the run shows
	// first. Its errors are the run's bad input.
	build func(b modeArgs) (Mode, []string, error)
}

// modeArgs are what a row of the table builds a run's mode from.
type modeArgs struct {
	// traits are the row's.
	traits Traits
	// name is the pipeline's name ("" for the default select over every
	// agent); pipeline its config, with Agents narrowed to those the run
	// uses (agents, after --agents).
	name     string
	pipeline config.Pipeline
	agents   []string
	// set builds agents, so that a mode can refuse one that cannot be
	// built before any agent spends a token.
	set *agentSet
}

// modes is the table of pipeline modes, the default (select over every
// agent) first. The driver builds a run's mode from it and the matrix
// reads its traits (ModeTraits); no other code knows a mode by its name.
var modes = []modeKind{
	{
		traits: Traits{Name: config.ModeSelect, Worktrees: true, Spools: true, ErrorLines: true, Split: SplitAgents},
		build: func(b modeArgs) (Mode, []string, error) {
			return selectMode{traits: b.traits}, b.agents, nil
		},
	},
	{
		traits: Traits{Name: config.ModeDelegate, Split: SplitTopics},
		// A delegation shows its coordinator first (specialists appear as
		// they start, one per topic); every specialist is built before the
		// coordinator spends a token.
		build: func(b modeArgs) (Mode, []string, error) {
			pl := b.pipeline
			if pl.Candidates > len(pl.Agents) {
				return nil, nil, fmt.Errorf("pipeline %q: candidates is %d but only %d specialists run (--agents)", b.name, pl.Candidates, len(pl.Agents))
			}
			if _, err := b.set.tasks(pl.Agents); err != nil {
				return nil, nil, err
			}
			return &delegateMode{traits: b.traits, pipeline: pl}, []string{pl.Coordinator}, nil
		},
	},
	{
		traits: Traits{Name: config.ModeStages, Split: SplitNone},
		build: func(b modeArgs) (Mode, []string, error) {
			return &stagesMode{traits: b.traits, name: b.name, pipeline: b.pipeline}, b.agents, nil
		},
	},
}

// kindOf returns the row of mode name; "" is the default.
func kindOf(name string) (modeKind, bool) {
	if name == "" {
		return modes[0], true
	}
	for _, k := range modes {
		if k.traits.Name == name {
			return k, true
		}
	}
	return modeKind{}, false
}

// ModeTraits returns the traits of the mode the config names name ("" is
// the default, select over every agent); false for a mode optr does not
// know.
func ModeTraits(name string) (Traits, bool) {
	k, ok := kindOf(name)
	return k.traits, ok
}

// modeName is the ledger's name of mode name: the default's for "" (a
// report of a run recorded before runs named their mode).
func modeName(name string) string {
	if t, ok := ModeTraits(name); ok {
		return t.Name
	}
	return name
}

// Execution is what a Mode works with.
type Execution struct {
	// Prepared is the resolved run: spec, agents, constraints.
	Prepared *Prepared
	// Run is the run's directory, where a mode writes its own files.
	Run *datalake.Run
	// rep is the run's report, which the driver fills with what the mode
	// hands it.
	rep *report
	// Options are the executor options of a select fan-out over every
	// agent: Tasks, the base Request, recovery Policy, Constraints,
	// watcher hooks, Sink (agent-outputs/<agent>.json), OnEvent. A mode
	// changes what it must (Tasks, Request) and keeps the rest, so that
	// recovery, the watcher and budgets apply to its agents alike.
	Options executor.Options
	// Watcher is the run's watcher: a mode that decides an escalation
	// itself (a stage chain) records it there, as the watcher records its
	// own decisions.
	Watcher *escalation.Watcher
	// launched is closed once the agents the run starts first sent their
	// work off (Options.Launched), or when the mode ended: what waits on
	// it (the blackboard's writes, workflow-optr.yaml) leaves the CPU to
	// their requests. launch closes it, once.
	launched chan struct{}
	launch   func()
}

// SetResults hands the mode's results to the run, in the order to show
// them: the score table, agent-outputs/ and the ledger's results.
func (x *Execution) SetResults(results []*executor.Result) { x.rep.Results = results }

// AddEscalations hands the run escalations the mode learnt of elsewhere
// (a gather's, from its tasks' jobs): the ledger records them before the
// run's entry, as it records the watcher's own.
func (x *Execution) AddEscalations(drafts ...ledger.Draft) {
	x.rep.escMu.Lock()
	defer x.rep.escMu.Unlock()
	x.rep.Escalations = append(x.rep.Escalations, drafts...)
}

// Charge counts s, spent for the result named agent elsewhere (a gather's
// task), in the run's meter: its totals and budgets.
func (x *Execution) Charge(ctx context.Context, agent string, s cost.Spend) {
	x.Prepared.meter.Charge(cost.ForAgent(ctx, agent), s)
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

// selectMode is select (architecture §2): every agent on the same intent, π*
// chosen by the selection rules.
type selectMode struct{ traits Traits }

func (m selectMode) Traits() Traits { return m.traits }

func (selectMode) Run(ctx context.Context, x *Execution) error {
	results, err := executor.Run(ctx, x.Options)
	x.SetResults(results)
	return err
}
