package matrix

import (
	"errors"
	"fmt"
	"slices"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
)

// NewPlan makes the plan of a run that pipeline.Prepare resolved: one task
// per agent, named after it, in the run's agent order. issue and title
// name the issue the run talks on (0 and "" when none).
func NewPlan(p *pipeline.Prepared, issue int, title string) (*Plan, error) {
	spec := p.Spec
	mode := config.ModeSelect
	if spec.Pipeline != "" {
		if m := spec.Config.Pipelines[spec.Pipeline].Mode; m != "" {
			mode = m
		}
	}
	if mode != config.ModeSelect {
		return nil, fmt.Errorf("pipeline %q has mode %s: the matrix runs select pipelines only in this version", spec.Pipeline, mode)
	}
	if len(p.AgentNames) > MaxTasks {
		return nil, fmt.Errorf("the run has %d agents; a GitHub Actions matrix holds at most %d jobs: run fewer agents (--agents) or in one job", len(p.AgentNames), MaxTasks)
	}
	plan := &Plan{
		PlanVersion: PlanVersion, RunID: spec.RunID, Workflow: spec.Workflow,
		Intent: spec.Intent, IntentSHA256: executor.SHA256Hex(spec.Intent),
		Constraints: check.Names(p.Constraints), IntentConstraints: slices.Clone(spec.Constraints),
		Pipeline: spec.Pipeline, Mode: mode, Commit: spec.Commit,
		Config: EmbedConfig(spec.Config), Issue: issue, Title: title,
	}
	if plan.Constraints == nil {
		plan.Constraints = []string{}
	}
	for _, a := range p.AgentNames {
		if err := ValidateTaskID(a); err != nil {
			return nil, fmt.Errorf("agent %q cannot name a task: %w", a, err)
		}
		plan.Tasks = append(plan.Tasks, Task{ID: a, Agent: a})
	}
	sum, err := plan.Config.SHA256()
	if err != nil {
		return nil, err
	}
	plan.ConfigSHA256 = sum
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	return plan, nil
}

// Spec is the run the plan describes, on the plan's own config: the
// datalake and ledger where it is recorded and the workspace its command
// agents and checks run in.
func (p *Plan) Spec(datalakeDir, ledgerPath, workspace string) (pipeline.Spec, error) {
	cfg, err := p.Config.Resolve()
	if err != nil {
		return pipeline.Spec{}, err
	}
	agents := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		agents[i] = t.Agent
	}
	return pipeline.Spec{
		Config: cfg, Workflow: p.Workflow, RunID: p.RunID, Intent: p.Intent,
		Constraints: slices.Clone(p.IntentConstraints), Pipeline: p.Pipeline, Agents: agents,
		Commit: p.Commit, Datalake: datalakeDir, LedgerPath: ledgerPath, Dir: workspace,
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
	if !slices.Equal(agents, prep.AgentNames) {
		errs = append(errs, fmt.Errorf("the plan's tasks run agents %v, but its config resolves to %v", agents, prep.AgentNames))
	}
	if got := check.Names(prep.Constraints); !slices.Equal(got, p.Constraints) {
		errs = append(errs, fmt.Errorf("the plan lists constraints %v, but its config resolves to %v", p.Constraints, got))
	}
	return errors.Join(errs...)
}
