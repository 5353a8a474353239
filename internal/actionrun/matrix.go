package actionrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/matrix"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/status"
)

// The matrix commands (architecture §4.11): plan in one job, task in each matrix
// job, gather in one job. Only plan reads the event and authorises its
// sender; task and gather work from the plan that job wrote.

// plan resolves a Run trigger into plan.json and the matrix output, and
// posts the progress comment with every task queued. No agent runs.
func (j *Job) plan(ctx context.Context, trig action.Trigger) error {
	runID := j.env.RunID()
	cfg, err := j.loadConfig()
	if err != nil {
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	}
	takeRequest(&trig, cfg)
	spec := j.spec(trig, runID, cfg)
	plan, prep, err := matrix.MakePlan(ctx, spec, j.deps(), trig.Issue, title(trig))
	var failed *matrix.PlanFailedError
	switch {
	case errors.As(err, &failed):
		return j.failEarly(ctx, trig, runID, &FailedError{Err: err})
	case pipeline.Refused(err):
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	case err != nil:
		return j.failEarly(ctx, trig, runID, err)
	}
	m, err := plan.Matrix()
	if err != nil {
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	}
	dir := filepath.Dir(j.inWorkspace(j.in.Plan))
	if _, err := plan.Write(dir); err != nil {
		return j.failEarly(ctx, trig, runID, err)
	}
	pr := &progressComment{j: j, issue: trig.Issue, title: plan.Title}
	pr.Started(ctx, prep)
	j.setOutputs(outcome{status: status.Completed, runID: runID})
	j.setOutput("matrix", string(m))
	j.setOutput("plan-dir", j.relative(dir))
	j.log.Notice(fmt.Sprintf("run %s planned: %d task(s) in %s", runID, len(plan.Tasks), j.relative(dir)))
	return nil
}

// readPlan reads the plan input and masks every key its config points at
// before any agent can print it (the job never read the config itself).
func (j *Job) readPlan() (*matrix.Plan, error) {
	plan, err := matrix.ReadPlan(j.inWorkspace(j.in.Plan))
	if err != nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, message: err.Error()})
		return nil, &UsageError{Err: err}
	}
	for _, a := range plan.Config.Settings.Agents {
		if a.APIKeyEnv != "" {
			j.log.Mask(j.Getenv(a.APIKeyEnv))
		}
	}
	return plan, nil
}

// task runs the one task named by the task input and leaves its folder
// below the results input for actions/upload-artifact. A failed agent is
// a result: the job succeeds, and gather counts it.
func (j *Job) task(ctx context.Context) error {
	plan, err := j.readPlan()
	if err != nil {
		return err
	}
	run, err := matrix.RunTask(ctx, plan, j.in.Task, j.deps(), j.workspace(), j.inWorkspace(j.in.Results))
	if run == nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, runID: plan.RunID, message: err.Error()})
		if pipeline.Refused(err) {
			return &UsageError{Err: err}
		}
		return err
	}
	r := run.Result
	j.logResults(&pipeline.Outcome{Results: []*executor.Result{r}})
	j.log.Notice(fmt.Sprintf("task %s (agent %s): %s, admissible: %t → %s", run.Task.ID, r.Agent, r.Status, r.HasOutput() && r.Checks.Admissible, j.relative(run.Dir)))
	var spent cost.Spend
	if r.Spent != nil {
		spent = *r.Spent
	}
	j.setOutputs(outcome{status: status.Completed, runID: plan.RunID, spent: spent})
	return err
}

// gather loads the tasks' results and carries the run to its end through
// the same driver, recorder and progress comment as a one-job run.
func (j *Job) gather(ctx context.Context) error {
	plan, err := j.readPlan()
	if err != nil {
		return err
	}
	from := j.inWorkspace(j.in.Results)
	g, err := matrix.Gather(ctx, plan, from)
	if err != nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, runID: plan.RunID, message: err.Error()})
		return err
	}
	for _, r := range g.Refused {
		j.log.Warning("refused " + r.String())
	}
	for _, id := range g.Missing {
		j.log.Warning(fmt.Sprintf("task %s left no result: counted as failed", id))
	}
	if err := j.connect(ctx); err != nil {
		return err
	}
	gm, err := matrix.NewGatherMode(plan, g)
	if err != nil {
		return &UsageError{Err: err}
	}
	lakeDir := j.datalake()
	spec, err := plan.Spec(lakeDir, datalake.Open(lakeDir).LedgerPath(), j.workspace())
	if err != nil {
		return &UsageError{Err: err}
	}
	trig := action.Trigger{Command: action.Run, Issue: plan.Issue, Title: plan.Title, Workflow: plan.Workflow, Intent: plan.Intent}
	drv := j.driver(ctx, trig, spec.Config, spec.LedgerPath, &progressComment{j: j, issue: plan.Issue, title: plan.Title})
	drv.Mode = gm
	rep, err := drv.Run(ctx, spec)
	if err != nil && rep == nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, runID: plan.RunID, message: err.Error()})
		if pipeline.Refused(err) {
			return &UsageError{Err: err}
		}
		return err
	}
	return j.conclude(ctx, rep) // a report returned with an error is a failed run's
}

func (j *Job) setOutput(name, value string) {
	if err := j.outs.Set(name, value); err != nil {
		j.log.Error("could not write the step outputs: " + err.Error())
	}
}

// relative names path relative to the workspace when it lies inside it.
func (j *Job) relative(path string) string {
	return pipeline.Spec{Dir: j.workspace()}.DisplayPath(path)
}
