package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
)

// TaskMode is the pipeline mode of one matrix task: the task's agent alone,
// with its recovery, the watcher and every check, exactly as in a one-job
// run. No spare takes over and nothing is synthesised: the other agents
// run in jobs of their own.
type TaskMode struct {
	// Mode is the plan's mode (the ledger's name for it).
	Mode string
	// Agent is the agent the task runs.
	Agent string
}

// Traits implements pipeline.Mode: the plan's mode, whose output is never
// spooled (the task's output.md is written from the result).
func (m TaskMode) Traits() pipeline.Traits {
	t, _ := pipeline.ModeTraits(m.Mode)
	t.Name, t.Spools = m.Mode, false
	return t
}

// Run implements pipeline.Mode.
func (m TaskMode) Run(ctx context.Context, x *pipeline.Execution) error {
	t, err := x.Task(m.Agent)
	if err != nil {
		return err
	}
	opts := x.Options
	opts.Tasks = []executor.Task{t}
	opts.Spares, opts.Synthesizer = nil, nil
	results, err := executor.Run(ctx, opts)
	x.SetResults(results)
	return err
}

// Candidates implements pipeline.Nominator: a task chooses nothing. The
// gather chooses, over every task's result, and settles each one itself
// (detection.all's threat scan among it): a task's result carries only the
// plan's checks.
func (TaskMode) Candidates() []*executor.Result { return nil }

// TaskRun is what RunTask did.
type TaskRun struct {
	// Task is the task that ran; Dir its folder, ready for upload.
	Task Task
	Dir  string
	// Result is the agent's result with its checks.
	Result *executor.Result
}

// RunTask runs task id of plan in workspace — its agent with recovery,
// then every check on its output — and writes out/optr-task-<id>/. It
// records nothing in the ledger and commits nothing: the run's scratch
// files (the datalake a one-job run would keep) live in a temporary
// directory that is removed afterwards. A failed agent is a result, not an
// error; errors are bad input (an unknown task) or files that could not be
// written.
func RunTask(ctx context.Context, plan *Plan, id string, deps pipeline.Deps, workspace, out string) (*TaskRun, error) {
	task, ok := plan.Task(id)
	if !ok {
		return nil, &pipeline.InputError{Err: fmt.Errorf("task %q is not in the plan (tasks: %v)", id, plan.TaskIDs())}
	}
	scratch, err := os.MkdirTemp("", "optr-task-")
	if err != nil {
		return nil, fmt.Errorf("create the task's scratch datalake: %w", err)
	}
	defer os.RemoveAll(scratch)
	spec, err := plan.Spec(scratch, filepath.Join(scratch, "ledger.jsonl"), workspace)
	if err != nil {
		return nil, &pipeline.InputError{Err: err}
	}
	prep, err := pipeline.Prepare(spec, deps)
	if err != nil {
		return nil, err
	}
	if err := plan.Check(prep); err != nil {
		return nil, &pipeline.InputError{Err: err}
	}
	if spec.Config.Changes.On() {
		_, head, err := changesBase(ctx, spec.Config, workspace)
		if err != nil {
			return nil, err
		}
		if plan.Commit == "" {
			return nil, &pipeline.InputError{Err: fmt.Errorf("changes.mode is %s, but the plan records no commit for the changes to start from: make the plan again with optr plan", spec.Config.Changes.Mode)}
		}
		if head != plan.Commit {
			return nil, &pipeline.InputError{Err: fmt.Errorf("changes.mode is %s: the workspace has commit %s checked out, but the plan's changes start from %s: check that commit out in the task's job", spec.Config.Changes.Mode, head, plan.Commit)}
		}
	}
	report := ""
	if t := prep.Traits(); t.Split == pipeline.SplitTopics {
		a, err := plan.assignment(task)
		if err != nil {
			return nil, &pipeline.InputError{Err: err}
		}
		report = filepath.Join(scratch, ReportFile)
		prep.SetMode(&topicMode{traits: t, pipeline: prep.Pipeline(), a: a, report: report})
	} else {
		prep.SetMode(TaskMode{Mode: plan.Mode, Agent: task.Agent})
	}
	defer prep.Settle(ctx) // the agent's worktree deleted before the job ends
	rep, err := prep.Execute(ctx)
	if err != nil && (rep == nil || len(rep.Results) == 0) {
		return nil, fmt.Errorf("task %s: %w", id, err)
	}
	r := rep.Results[0]
	extras := Extras{Escalations: rep.Escalations, AgentFiles: filepath.Join(rep.RunDir, datalake.DirAgentFiles), Report: report}
	if r.Change != nil && len(r.Change.Files) > 0 && r.Change.Refused == "" {
		extras.Patch = rep.Path(pipeline.PatchFile(r.Agent))
	}
	dir, werr := WriteTask(out, plan, task, r, extras)
	if werr != nil {
		return nil, werr
	}
	run := &TaskRun{Task: task, Dir: dir, Result: r}
	if err != nil { // cancelled: the result says so, and so does the exit
		return run, fmt.Errorf("task %s: %w", id, err)
	}
	return run, nil
}
