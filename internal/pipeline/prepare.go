package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/budget"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/worktree"
)

// Prepared is a run whose inputs were resolved and validated. Nothing has
// been written yet: every input error surfaces from Prepare.
type Prepared struct {
	Spec        Spec
	AgentNames  []string
	Constraints []check.Constraint
	tasks       []executor.Task
	policy      recovery.Policy
	checkEarly  bool
	deps        Deps
	agents      *agentSet
	sandbox     *sandbox.Run
	mode        Mode
	// meter counts what the run spends and holds its caps.
	meter *cost.Meter
	// pipeline is the run's pipeline config, its agents narrowed to those
	// the run uses (zero for the default select over every agent).
	pipeline config.Pipeline
	// changes holds the run's worktrees once Execute started them (nil
	// when agents do not change code); their files are deleted in the
	// background until Settle.
	changes *codeChanges
	// records are what people did with each agent's pull requests lately,
	// read from recordsFrom once, when the run first selects
	// (loadRecords): ties of scores go to the agent whose changes they
	// kept.
	recordsFrom ledger.Store
	recordsOnce sync.Once
	records     map[string]selection.Record
	// scanner is the run's threat Scanner (Scanner), made once: every scan
	// of the run spends from its one detection bound.
	scanner     *Scanner
	scannerErr  error
	scannerOnce sync.Once
}

// Settle waits until the run's worktrees, discarded when its agents were
// done, are deleted from disk, so that nothing of them is left once the
// run is over; their removal overlapped delivery and recording. The
// Driver calls it, and whoever calls Execute without the Driver (a matrix
// task). It closes the run's model gateway too: no placeholder key of the
// run opens it afterwards.
func (p *Prepared) Settle(ctx context.Context) {
	if c := p.changes; c != nil {
		if err := c.run.Wait(context.WithoutCancel(ctx)); err != nil {
			p.deps.logf("remove the agents' worktrees: %v", err)
		}
	}
	if err := p.agents.gw.close(); err != nil {
		p.deps.logf("close the model gateway: %v", err)
	}
}

// Prepare resolves spec against its config: the pipeline and agents, the
// constraints (config policy plus the intent's), the agents themselves and
// the recovery policy. Errors are *InputError, except a
// *NothingUsableError when no agent can work here (see checkUsable).
func Prepare(spec Spec, deps Deps) (*Prepared, error) {
	cfg := spec.Config
	if cfg == nil {
		return nil, inputErr(errors.New("no configuration"))
	}
	if err := datalake.ValidateWorkflow(spec.Workflow); err != nil {
		return nil, inputErr(fmt.Errorf("bad workflow name: %w", err))
	}
	if err := datalake.ValidateRunID(spec.RunID); err != nil {
		return nil, inputErr(fmt.Errorf("bad run id: %w", err))
	}
	if spec.Intent == "" {
		return nil, inputErr(errors.New("the intent is empty: give --intent or --intent-file"))
	}
	extra := slices.Clone(spec.Constraints)
	if spec.Pipeline != "" {
		pl, ok := cfg.Pipelines[spec.Pipeline]
		if !ok {
			return nil, inputErr(fmt.Errorf("pipeline %q is not configured (configured: %v)", spec.Pipeline, keys(cfg.Pipelines)))
		}
		extra = append(extra, pl.Constraints...)
	}
	// The run's caps; Driver adds what the day's and month's budgets have
	// left before the run starts.
	meter := cost.NewMeter(cost.NewPricer(cfg.Prices, cost.Builtin), budget.RunCaps(cfg.Budget)...)
	sbxSettings := sandbox.FromConfig(cfg, deps.Environ)
	sbxSettings.Unavailable = deps.SandboxUnavailable
	sbx := sandbox.New(sbxSettings)
	gw := newRunGateway(cfg, deps, meter)
	set := &agentSet{cfg: cfg, deps: deps, secret: gw.redactor(secrets(cfg, deps.Getenv)), meter: meter, sbx: sbx, gw: gw}
	mode, pl, names, err := modeOf(cfg, spec, set)
	if err != nil {
		return nil, inputErr(err)
	}
	tasks, err := set.tasks(names)
	if err != nil {
		return nil, inputErr(err)
	}
	if err := checkUsable(spec.RunID, tasks); err != nil {
		return nil, err
	}
	if _, dropped := check.CapIntent(cfg, extra); len(dropped) > 0 {
		deps.logf("dropped %d constraints named by the intent past budget.max-intent-constraints (%d): %s",
			len(dropped), len(extra)-len(dropped), strings.Join(dropped, ", "))
	}
	judges := check.NewVerdicts()
	opts := check.Options{
		Dir:          spec.Dir,
		Env:          deps.Environ,
		Sandbox:      sbx,
		Judge:        set.get,
		DefaultJudge: firstLLM(cfg),
		Cache:        judges,
		Workflow:     spec.Workflow,
		RunID:        spec.RunID,
		Redactor:     set.secret,
		Budget:       meter,
	}
	constraints, err := check.Resolve(cfg, extra, opts)
	if err != nil {
		return nil, inputErr(err)
	}
	var analyzer agent.Agent
	if cfg.Recovery.Analyzer != "" {
		if analyzer, err = set.get(cfg.Recovery.Analyzer); err != nil {
			return nil, inputErr(fmt.Errorf("recovery.analyzer: %w", err))
		}
	}
	if t := mode.Traits(); cfg.Changes.On() && !t.Worktrees {
		return nil, inputErr(fmt.Errorf("changes.mode is %s, but pipeline mode %s does not run its agents in worktrees: code changes need mode %s", cfg.Changes.Mode, t.Name, modes[0].traits.Name))
	}
	if err := refuseTextAgents(cfg.Changes, tasks); err != nil {
		return nil, inputErr(err)
	}
	policy := recovery.FromConfig(cfg.Recovery, analyzer, meter)
	p := &Prepared{
		Spec:        spec,
		AgentNames:  names,
		Constraints: constraints,
		tasks:       tasks,
		policy:      policy,
		checkEarly:  policy.Analyzer != nil,
		deps:        deps,
		agents:      set,
		sandbox:     sbx,
		mode:        mode,
		meter:       meter,
		pipeline:    pl,
	}
	if cfg.Changes.On() {
		// A constraint of the run from the start (a matrix plan lists it);
		// it judges changes in the worktrees Execute starts.
		policy := worktree.PolicyOf(cfg.Changes)
		policy.Own = slices.Clone(spec.Own)
		p.Constraints = append(p.Constraints, worktree.Constraint(
			policy,
			worktree.Limits{Redactor: set.secret}, p.worktrees, spec.OwnFiles()...))
	}
	return p, nil
}

// modeOf is the mode spec's pipeline runs, from the table of modes, with
// the pipeline as this run runs it and the agents it shows first.
func modeOf(cfg *config.Config, spec Spec, set *agentSet) (Mode, config.Pipeline, []string, error) {
	names, err := cfg.Selected(spec.Pipeline, spec.Agents)
	if err != nil {
		return nil, config.Pipeline{}, nil, err
	}
	if len(names) == 0 && spec.Pipeline == "" && len(cfg.Pipelines) > 0 {
		return nil, config.Pipeline{}, nil, fmt.Errorf("no agent runs without a pipeline here (every agent is a stage of one): run a pipeline with --pipeline, one of %s", strings.Join(keys(cfg.Pipelines), ", "))
	}
	if len(names) == 0 {
		return nil, config.Pipeline{}, nil, errors.New("no agents to run")
	}
	pl := cfg.Pipelines[spec.Pipeline]
	kind, ok := kindOf(pl.Mode)
	if !ok {
		return nil, config.Pipeline{}, nil, fmt.Errorf("pipeline %q has mode %q, which optr does not know", spec.Pipeline, pl.Mode)
	}
	if spec.Pipeline != "" {
		pl.Agents = names // --agents narrows the pipeline's agents
	}
	mode, shown, err := kind.build(modeArgs{traits: kind.traits, name: spec.Pipeline, pipeline: pl, agents: names, set: set})
	if err != nil {
		return nil, config.Pipeline{}, nil, err
	}
	return mode, pl, shown, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// SetMode replaces the mode the config chose (a matrix gather brings the
// results its tasks produced instead of running agents).
func (p *Prepared) SetMode(m Mode) { p.mode = m }

// Traits are the traits of the run's mode.
func (p *Prepared) Traits() Traits { return p.mode.Traits() }

// Pipeline is the run's pipeline config, its agents narrowed to those the
// run uses (--agents); zero for the default select over every agent.
func (p *Prepared) Pipeline() config.Pipeline { return p.pipeline }
