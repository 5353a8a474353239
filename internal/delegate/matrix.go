package delegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// The steps of Run, split for a run spread over a GitHub Actions matrix
// (architecture §4.11): PlanTopics runs the coordinator in the plan job,
// RunSpecialist one specialist invocation in each task job, and Assemble
// takes the remaining steps in the gather job over the results the tasks
// produced, so the spec folder, the barrier, OVERVIEW.md, errors.jsonl, the
// summary and the ledger members come out as Run makes them.

// Assignment is one specialist invocation of a planned topic.
type Assignment struct {
	// N numbers the topic from 1 (its report's NNN).
	N     int   `json:"n"`
	Topic Topic `json:"topic"`
	// Agent is the configured specialist; Name the result name
	// (<agent>.<NNN>).
	Agent string `json:"agent"`
	Name  string `json:"name"`
}

// PlanTopics takes step 2 alone: the coordinator plans, under recovery.
// topics is nil when it produced no usable plan; failure then says why.
// The coordinator's result is returned in every case it ran.
func PlanTopics(ctx context.Context, in Input) (topics []Topic, coordinator *executor.Result, failure *Failure, err error) {
	if err := in.check(); err != nil {
		return nil, nil, nil, fmt.Errorf("delegate: %w", err)
	}
	r := &runner{in: in, o: &Outcome{}}
	topics, err = r.plan(ctx)
	return topics, r.o.Coordinator, r.o.CoordinatorFailure, err
}

// Assign lists the specialist invocations of topics in the order Run
// starts them: topic by topic, candidate by candidate.
func Assign(in Input, topics []Topic) []Assignment {
	r := &runner{in: in, o: &Outcome{}}
	var out []Assignment
	for _, p := range r.assign(topics) {
		for _, c := range p.cands {
			out = append(out, Assignment{N: p.n, Topic: p.topic, Agent: c.agent, Name: c.name})
		}
	}
	return out
}

// RunSpecialist runs one invocation (step 4 and the report's validation of
// step 5) with its report at reportPath (absolute) and returns its result:
// the validated report is its output, checked against the run's
// constraints. A failed specialist is a result, not an error.
func RunSpecialist(ctx context.Context, in Input, a Assignment, reportPath string) (*executor.Result, error) {
	t, err := in.Task(a.Agent)
	if err != nil {
		return nil, fmt.Errorf("build specialist %s: %w", a.Agent, err)
	}
	llm := in.isLLM(a.Agent)
	t.Agent = &specialist{Agent: t.Agent, name: a.Name, llm: llm, topic: a.Topic, path: reportPath,
		brief: specialistBrief(in.Intent, a.Topic, reportPath, llm), dir: in.Dir, redact: in.Redact}
	t.Configured = a.Agent
	r := &runner{in: in, o: &Outcome{}}
	results, err := executor.Run(ctx, r.options([]executor.Task{t}))
	if len(results) == 0 {
		return nil, errors.Join(errors.New("the specialist did not run"), err)
	}
	return results[0], err
}

// Assemble takes steps 1, 3 and 5 to 10 of a run whose coordinator and
// specialists ran elsewhere: coordinator is the coordinator's result,
// topics its plan (nil when it failed, with failure saying why), results
// the specialists' results in Assign order (a missing invocation is a
// failed result), and reports the report files command specialists wrote,
// by result name, valid or not: each is put where the specialist would
// have written it in one job (its planned or candidate path) before the
// topics are judged, as Run judges them. Results go to in.Exec.Sink as
// Run's executor would send them.
func Assemble(ctx context.Context, in Input, coordinator *executor.Result, topics []Topic, failure *Failure, results []*executor.Result, reports map[string]string) (*Outcome, error) {
	if coordinator == nil {
		return nil, errors.New("delegate: no coordinator result")
	}
	r, err := start(in)
	if err != nil {
		return nil, err
	}
	defer r.release()
	o := r.o
	var sinkErrs []error
	sink := func(res *executor.Result) {
		if in.Exec.Sink != nil {
			sinkErrs = append(sinkErrs, in.Exec.Sink(res))
		}
	}
	sink(coordinator)
	o.Coordinator, o.Results = coordinator, []*executor.Result{coordinator}
	if topics == nil {
		o.CoordinatorFailure = failure
		if o.CoordinatorFailure == nil {
			f := resultFailure(coordinator)
			f.Type, f.Hint = ReasonCoordinatorError, hintFor(ReasonCoordinatorError)
			o.CoordinatorFailure = &f
		}
		o.Status = status.Failed
		o.Message = "the coordinator produced no usable plan: " + o.CoordinatorFailure.Message
		return o, errors.Join(append(sinkErrs, r.finish(nil))...)
	}
	plan := r.assign(topics)
	want := 0
	for _, p := range plan {
		want += len(p.cands)
	}
	if len(results) != want {
		return o, fmt.Errorf("delegate: %d specialist results for %d invocations", len(results), want)
	}
	if err := r.writeInvocationPlan(plan); err != nil {
		return o, err
	}
	if err := r.placeReports(plan, reports); err != nil {
		return o, err
	}
	for _, res := range results {
		sink(res)
	}
	o.Results = append(o.Results, results...)
	i := 0
	for _, p := range plan {
		n := len(p.cands)
		o.Topics = append(o.Topics, r.judge(ctx, p, results[i:i+n]))
		i += n
	}
	r.barrier(nil)
	if err := r.writeOverview(); err != nil {
		r.errs = append(r.errs, err)
	}
	return o, errors.Join(append(sinkErrs, r.finish(ctx.Err()))...)
}

// placeReports writes the report files command specialists left in other
// jobs where they would have written them in this one.
func (r *runner) placeReports(plan []planned, reports map[string]string) error {
	if err := r.makeCandidateFolders(plan); err != nil {
		return err
	}
	for _, p := range plan {
		for _, c := range p.cands {
			text, ok := reports[c.name]
			if !ok || r.in.isLLM(c.agent) {
				continue
			}
			if err := datalake.WriteOnce(c.path, []byte(text)); err != nil {
				return fmt.Errorf("write the report of %s: %w", c.name, err)
			}
		}
	}
	return nil
}
