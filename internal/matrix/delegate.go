package matrix

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/delegate"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
)

// A delegate pipeline over the matrix: its coordinator runs inside plan
// (with recovery and the watcher), each specialist invocation of a topic is
// a task, and gather assembles the delegation — spec folder, barrier,
// OVERVIEW.md, errors.jsonl, summary, ledger — with delegate.Assemble
// through pipeline.DelegateMode.

// coordinatorMode runs only a delegation's coordinator (plan).
type coordinatorMode struct {
	traits   pipeline.Traits
	pipeline config.Pipeline
	topics   []delegate.Topic
	coord    *executor.Result
	failure  *delegate.Failure
}

func (m *coordinatorMode) Traits() pipeline.Traits { return m.traits }

func (m *coordinatorMode) Run(ctx context.Context, x *pipeline.Execution) error {
	topics, coord, failure, err := delegate.PlanTopics(ctx, x.DelegateInput(m.pipeline))
	m.topics, m.coord, m.failure = topics, coord, failure
	if coord != nil {
		x.SetResults([]*executor.Result{coord})
	}
	return err
}

// Candidates implements pipeline.Nominator: the plan is not a result to
// select.
func (m *coordinatorMode) Candidates() []*executor.Result { return nil }

// planDelegate runs the coordinator of prep (prepared on a scratch
// datalake) and fills plan's coordinator, topics and tasks: one per
// specialist invocation.
func planDelegate(ctx context.Context, prep *pipeline.Prepared, pl config.Pipeline, plan *Plan) error {
	m := &coordinatorMode{traits: prep.Traits(), pipeline: pl}
	prep.SetMode(m)
	if _, err := prep.Execute(ctx); err != nil {
		return fmt.Errorf("run the coordinator: %w", err)
	}
	if m.topics == nil {
		msg := "the coordinator did not run"
		if m.failure != nil {
			msg = m.failure.Message
		}
		return &PlanFailedError{Err: fmt.Errorf("the coordinator %s produced no usable plan: %s", pl.Coordinator, msg)}
	}
	plan.Coordinator, plan.Topics = m.coord, m.topics
	for _, a := range delegate.Assign(delegate.Input{Config: prep.Spec.Config, Pipeline: pl}, m.topics) {
		plan.Tasks = append(plan.Tasks, Task{
			ID: assignmentID(a, pl.Candidates > 1), Agent: a.Agent, Topic: a.Topic.Topic, N: a.N, Name: a.Name,
		})
	}
	return nil
}

// PlanFailedError is a plan that could not be made because an agent of it
// failed (a delegation's coordinator): the run failed, exit 1.
type PlanFailedError struct{ Err error }

// Error implements error.
func (e *PlanFailedError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *PlanFailedError) Unwrap() error { return e.Err }

// assignmentID is a task id for one invocation: NNN-<topic slug>, with
// the agent after NNN when a topic has several candidates, cut to a slug's
// length.
func assignmentID(a delegate.Assignment, withAgent bool) string {
	id := fmt.Sprintf("%03d", a.N)
	if withAgent {
		id += "-" + a.Agent
	}
	if s := delegate.Slug(a.Topic.Topic); s != "" {
		id += "-" + s
	}
	if len(id) > datalake.MaxNameLen {
		id = id[:datalake.MaxNameLen]
	}
	return strings.TrimRight(id, "-._")
}

// assignment is the delegate invocation of task t.
func (p *Plan) assignment(t Task) (delegate.Assignment, error) {
	if t.N < 1 || t.N > len(p.Topics) {
		return delegate.Assignment{}, fmt.Errorf("task %q names topic %d of %d", t.ID, t.N, len(p.Topics))
	}
	return delegate.Assignment{N: t.N, Topic: p.Topics[t.N-1], Agent: t.Agent, Name: t.Name}, nil
}

// topicMode runs one specialist invocation (a delegate task).
type topicMode struct {
	traits   pipeline.Traits
	pipeline config.Pipeline
	a        delegate.Assignment
	report   string // where the specialist writes its report
}

func (m *topicMode) Traits() pipeline.Traits { return m.traits }

func (m *topicMode) Run(ctx context.Context, x *pipeline.Execution) error {
	r, err := delegate.RunSpecialist(ctx, x.DelegateInput(m.pipeline), m.a, m.report)
	if r != nil {
		x.SetResults([]*executor.Result{r})
	}
	return err
}

// Candidates implements pipeline.Nominator: a task chooses nothing (see
// TaskMode's).
func (m *topicMode) Candidates() []*executor.Result { return nil }

// delegateGather is the gather's mode for a delegation: the tasks' agent
// files and escalations as GatherMode adds them, then the delegation
// assembled from the plan's coordinator and the gathered results.
type delegateGather struct {
	pipeline.Mode
	g *Gathered
}

func newDelegateGather(t pipeline.Traits, plan *Plan, pl config.Pipeline, g *Gathered) *delegateGather {
	assemble := func(ctx context.Context, in delegate.Input) (*delegate.Outcome, error) {
		return delegate.Assemble(ctx, in, plan.Coordinator, plan.Topics, nil, g.Results, g.Reports)
	}
	return &delegateGather{Mode: pipeline.DelegateMode(t, pl, assemble), g: g}
}

// Traits implements pipeline.Mode: the delegation's, gathered.
func (m *delegateGather) Traits() pipeline.Traits { return m.Mode.Traits().Gathered() }

func (m *delegateGather) Run(ctx context.Context, x *pipeline.Execution) error {
	if err := putFiles(x, m.g); err != nil {
		return err
	}
	charge(ctx, x, m.g)
	x.AddEscalations(m.g.Escalations...)
	return m.Mode.Run(ctx, x)
}

// Candidates implements pipeline.Nominator: the delegation's.
func (m *delegateGather) Candidates() []*executor.Result {
	if n, ok := m.Mode.(pipeline.Nominator); ok {
		return n.Candidates()
	}
	return nil
}

// Conclude implements pipeline.Concluder: the barrier decides.
func (m *delegateGather) Conclude() pipeline.Conclusion {
	return m.Mode.(pipeline.Concluder).Conclude()
}

// errNotDelegate is returned for a delegate plan whose config has no
// delegate pipeline of that name.
var errNotDelegate = errors.New("the plan is a delegation, but its pipeline is not a delegate pipeline")
