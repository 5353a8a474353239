package matrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/worktree"
)

// MakePlan resolves spec once — config, agents, constraints, intent, run
// id — and makes its plan: for select one task per agent, named after it;
// for a delegation the coordinator runs here (with recovery and the
// watcher, in a scratch datalake that is removed afterwards) and each
// specialist invocation of its topics is a task. issue and title name the
// issue the run talks on (0 and "" when none). Bad input and the matrix's
// limits are *pipeline.InputError; a coordinator without a usable plan is
// *PlanFailedError. It returns the prepared run too (its agents, for the
// progress comment).
func MakePlan(ctx context.Context, spec pipeline.Spec, deps pipeline.Deps, issue int, title string) (*Plan, *pipeline.Prepared, error) {
	// The datalake, ledger and config the run records in and runs under
	// are this job's, not the coordinator's scratch datalake below.
	ownFiles := spec.OwnFiles()
	scratch, err := os.MkdirTemp("", "optr-plan-")
	if err != nil {
		return nil, nil, fmt.Errorf("create the plan's scratch datalake: %w", err)
	}
	defer os.RemoveAll(scratch)
	spec.Datalake, spec.LedgerPath = scratch, filepath.Join(scratch, "ledger.jsonl")
	prep, err := pipeline.Prepare(spec, deps)
	if err != nil {
		return nil, nil, err
	}
	var own []worktree.Own
	if spec.Config.Changes.On() {
		// Every task's worktree starts at the plan's commit, and the
		// gather takes only changes against it: the commit the workspace
		// has checked out now, which must be the triggering one when
		// that is known.
		top, head, err := changesBase(ctx, spec.Config, spec.Dir)
		if err != nil {
			return nil, nil, err
		}
		own = worktree.OwnIn(top, ownFiles) // as the changes name them: from the top level
		if spec.Commit != "" && spec.Commit != head {
			return nil, nil, &pipeline.InputError{Err: fmt.Errorf("changes.mode is %s: the workspace has commit %s checked out, not the triggering commit %s that the tasks will check out", spec.Config.Changes.Mode, head, spec.Commit)}
		}
		spec.Commit = head
	}
	mode := prep.Traits()
	plan := &Plan{
		PlanVersion: PlanVersion, RunID: spec.RunID, Workflow: spec.Workflow,
		Intent: spec.Intent, IntentSHA256: executor.SHA256Hex(spec.Intent),
		Constraints: check.Names(prep.Constraints), IntentConstraints: slices.Clone(spec.Constraints),
		Pipeline: spec.Pipeline, Mode: mode.Name, Commit: spec.Commit,
		Config: EmbedConfig(spec.Config), Issue: issue, Title: title, Own: own,
	}
	if plan.Constraints == nil {
		plan.Constraints = []string{}
	}
	switch mode.Split {
	case pipeline.SplitTopics:
		pl := prep.Pipeline()
		plan.Specialists = slices.Clone(pl.Agents)
		if err := planDelegate(ctx, prep, pl, plan); err != nil {
			return nil, nil, err
		}
	case pipeline.SplitAgents:
		for _, a := range prep.AgentNames {
			if err := ValidateTaskID(a); err != nil {
				return nil, nil, &pipeline.InputError{Err: fmt.Errorf("agent %q cannot name a task: %w", a, err)}
			}
			plan.Tasks = append(plan.Tasks, Task{ID: a, Agent: a})
		}
	default:
		return nil, nil, &pipeline.InputError{Err: fmt.Errorf("pipeline %q has mode %s: the matrix runs select and delegate pipelines (a stage waits for the one before it)", spec.Pipeline, mode.Name)}
	}
	if len(plan.Tasks) > MaxTasks {
		return nil, nil, &pipeline.InputError{Err: fmt.Errorf("the run has %d tasks; a GitHub Actions matrix holds at most %d jobs: run fewer agents (--agents) or topics, or in one job", len(plan.Tasks), MaxTasks)}
	}
	sum, err := plan.Config.SHA256()
	if err != nil {
		return nil, nil, err
	}
	plan.ConfigSHA256 = sum
	if err := plan.Validate(); err != nil {
		return nil, nil, &pipeline.InputError{Err: err}
	}
	return plan, prep, nil
}

// changesBase is the commit the workspace at dir has checked out, where
// every worktree of a run with code changes starts, and the top level of
// its repository; not being in a git checkout is bad input.
func changesBase(ctx context.Context, cfg *config.Config, dir string) (top, head string, err error) {
	if top, head, err = worktree.Checkout(ctx, "", dir); err != nil {
		return "", "", &pipeline.InputError{Err: fmt.Errorf("changes.mode is %s: %w", cfg.Changes.Mode, err)}
	}
	return top, head, nil
}

// Spec is the run the plan describes, on the plan's own config: the
// datalake and ledger where it is recorded and the workspace its command
// agents and checks run in.
func (p *Plan) Spec(datalakeDir, ledgerPath, workspace string) (pipeline.Spec, error) {
	cfg, err := p.Config.Resolve()
	if err != nil {
		return pipeline.Spec{}, err
	}
	t, err := p.traits()
	if err != nil {
		return pipeline.Spec{}, err
	}
	agents := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		agents[i] = t.Agent
	}
	if t.Split == pipeline.SplitTopics {
		agents = slices.Clone(p.Specialists)
	}
	return pipeline.Spec{
		Config: cfg, Workflow: p.Workflow, RunID: p.RunID, Intent: p.Intent,
		Constraints: slices.Clone(p.IntentConstraints), Pipeline: p.Pipeline, Agents: agents,
		Commit: p.Commit, Datalake: datalakeDir, LedgerPath: ledgerPath, Dir: workspace,
		Own: slices.Clone(p.Own),
	}, nil
}

// Check reports whether prep, prepared from the plan's Spec, is the run
// the plan was made for: the same agents and the same resolved
// constraints. A difference means the plan cannot be trusted.
func (p *Plan) Check(prep *pipeline.Prepared) error {
	var errs []error
	var agents []string
	for _, t := range p.Tasks {
		agents = append(agents, t.Agent)
	}
	if prep.Traits().Split == pipeline.SplitTopics {
		if pl := prep.Pipeline(); !slices.Equal(p.Specialists, pl.Agents) {
			errs = append(errs, fmt.Errorf("the plan's specialists are %v, but its config resolves to %v", p.Specialists, pl.Agents))
		}
	} else if !slices.Equal(agents, prep.AgentNames) {
		errs = append(errs, fmt.Errorf("the plan's tasks run agents %v, but its config resolves to %v", agents, prep.AgentNames))
	}
	if got := check.Names(prep.Constraints); !slices.Equal(got, p.Constraints) {
		errs = append(errs, fmt.Errorf("the plan lists constraints %v, but its config resolves to %v", p.Constraints, got))
	}
	return errors.Join(errs...)
}
