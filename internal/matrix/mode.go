package matrix

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
)

// GatherMode is the pipeline mode of a matrix gather: instead of running
// agents it hands the driver the results the tasks produced, through the
// same sink (agent-outputs/<agent>.json) and events (the progress comment)
// as a one-job run. Set it as pipeline.Driver.Mode; everything after —
// selection, the checkpoint or the record, the commit, the comment and the
// outputs — is the driver's one code path.
type GatherMode struct {
	// Mode is the plan's mode (the ledger's name for it).
	Mode string
	// Gathered are the results Gather loaded.
	Gathered *Gathered
}

// Traits implements pipeline.Mode: the plan's mode, gathered (the tasks
// ran the agents, in worktrees of their own jobs).
func (m GatherMode) Traits() pipeline.Traits {
	t, _ := pipeline.ModeTraits(m.Mode)
	t.Name = m.Mode
	return t.Gathered()
}

// Run implements pipeline.Mode.
func (m GatherMode) Run(ctx context.Context, x *pipeline.Execution) error {
	if len(m.Gathered.Results) != len(x.Prepared.AgentNames) {
		return fmt.Errorf("gathered %d results for %d agents", len(m.Gathered.Results), len(x.Prepared.AgentNames))
	}
	for _, r := range m.Gathered.Results {
		if err := ctx.Err(); err != nil {
			return err
		}
		recheck(ctx, x.Options.Constraints, r)
	}
	// What the tasks spent is the run's before anything is chosen: a
	// choice weighs what each result cost.
	charge(ctx, x, m.Gathered)
	if err := confirm(ctx, x, m.Gathered); err != nil {
		return err
	}
	for _, r := range m.Gathered.Results {
		if patch, ok := m.Gathered.patches[r.Agent]; ok {
			if err := x.Run.WriteChange(pipeline.PatchFile(r.Agent), patch); err != nil {
				return fmt.Errorf("record %s: %w", pipeline.PatchFile(r.Agent), err)
			}
		}
		if x.Options.Sink != nil {
			if err := x.Options.Sink(r); err != nil {
				return fmt.Errorf("record %s: %w", filepath.Join(datalake.DirOutputs, r.Agent+".json"), err)
			}
		}
		if x.Options.OnEvent != nil {
			x.Options.OnEvent(executor.Event{
				Agent: r.Agent, Status: r.Status, Elapsed: time.Duration(r.ExecMS) * time.Millisecond,
				Attempt: len(r.Attempts), Result: r,
			})
		}
	}
	if err := putFiles(x, m.Gathered); err != nil {
		return err
	}
	x.SetResults(m.Gathered.Results)
	x.AddEscalations(m.Gathered.Escalations...)
	return nil
}

// recheck judges r's output again by every check that depends on the
// output alone and keeps those verdicts, not the ones its task recorded:
// a result.json is written by a job whose agent and command checks ran
// code nobody reviewed, and an output swapped after its checks ran (its
// hash updated) or verdicts set to passed would otherwise be admitted. A
// verdict found different says so in its reason. A result nothing
// checked (its agent failed) has nothing to judge again.
func recheck(ctx context.Context, constraints []check.Constraint, r *executor.Result) {
	if len(r.Checks.Verdicts) == 0 {
		return
	}
	ev, overruled := check.Recheck(ctx, constraints, r.Checks, r.Output)
	r.Checks = overrule(r.Checks.Verdicts, ev, overruled)
}

// overrule is ev with the reason of each verdict of overruled saying what
// the task had recorded for it instead (recorded).
func overrule(recorded []check.Verdict, ev check.Evaluation, overruled []string) check.Evaluation {
	for i, v := range ev.Verdicts {
		if !slices.Contains(overruled, v.Constraint) {
			continue
		}
		was := "no verdict"
		if j := slices.IndexFunc(recorded, func(o check.Verdict) bool { return o.Constraint == v.Constraint }); j >= 0 {
			was = string(recorded[j].Status)
		}
		ev.Verdicts[i].Reason = fmt.Sprintf("the task recorded %s, the gather found %s: %s", was, v.Status, v.Reason)
	}
	return ev
}

// charge counts what the tasks spent in the run's meter, each result's
// spend charged to it: the run's totals and the budgets count the tasks'
// calls as a one-job run's.
func charge(ctx context.Context, x *pipeline.Execution, g *Gathered) {
	for _, r := range g.Results {
		if r.Spent != nil {
			x.Charge(ctx, r.Agent, *r.Spent)
		}
	}
}

// putFiles puts the tasks' agent files into the run's agent-files/ (the
// pipeline sanitises that folder after the mode ran).
func putFiles(x *pipeline.Execution, g *Gathered) error {
	for _, f := range g.files {
		if err := f.put(x.Options.Request.OutputDir); err != nil {
			return fmt.Errorf("put agent file %s into the run: %w", f.rel, err)
		}
	}
	return nil
}

// NewGatherMode is the mode a gather sets as pipeline.Driver.Mode for
// plan: GatherMode for a task per agent (select), the delegation assembled
// from the gathered specialists' results for a task per topic (delegate).
func NewGatherMode(plan *Plan, g *Gathered) (pipeline.Mode, error) {
	t, err := plan.traits()
	if err != nil {
		return nil, err
	}
	if t.Split != pipeline.SplitTopics {
		return GatherMode{Mode: plan.Mode, Gathered: g}, nil
	}
	cfg, err := plan.Config.Resolve()
	if err != nil {
		return nil, err
	}
	pl, ok := cfg.Pipelines[plan.Pipeline]
	if pt, known := pipeline.ModeTraits(pl.Mode); !ok || !known || pt.Split != pipeline.SplitTopics {
		return nil, errNotDelegate
	}
	pl.Agents = plan.Specialists
	return newDelegateGather(t, plan, pl, g), nil
}
