package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/optr-dev/optr/internal/matrix"
	"github.com/optr-dev/optr/internal/status"
)

const taskUsage = `optr task --plan DIR/plan.json --task ID [flags]

Runs one task of a plan — its agent with recovery, then every check on the
output — and writes OUT/optr-task-<ID>/ (result.json and output.md), ready
for actions/upload-artifact. It records nothing in the ledger and commits
nothing. A failed agent is a result (exit 0); bad usage exits 2.`

// TaskOutcome is what `optr task --json` prints.
type TaskOutcome struct {
	RunID        string        `json:"run_id"`
	Task         string        `json:"task"`
	Agent        string        `json:"agent"`
	Status       status.Status `json:"status"`
	Admissible   bool          `json:"admissible"`
	Invariants   []string      `json:"invariants"`
	OutputSHA256 string        `json:"output_sha256"`
	Dir          string        `json:"dir"`
	Error        string        `json:"error,omitempty"`
}

func (c *CLI) cmdTask(ctx context.Context, args []string) error {
	var planPath, id, out string
	var asJSON bool
	fs := c.flags("task")
	fs.StringVar(&planPath, "plan", "optr-plan/plan.json", "the plan optr plan wrote")
	fs.StringVar(&id, "task", "", "the task to run (a task id of the plan)")
	fs.StringVar(&out, "out", "optr-tasks", "directory to write optr-task-<ID>/ into")
	fs.BoolVar(&asJSON, "json", false, "print the task's outcome as JSON")
	if err := c.parse(fs, taskUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(errArgs("task", fs.Args()))
	}
	if id == "" {
		return usageErr(errors.New("no task: give --task ID (one of the plan's task ids)"))
	}
	plan, err := matrix.ReadPlan(planPath)
	if err != nil {
		return usageErr(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	run, err := matrix.RunTask(ctx, plan, id, c.deps(), wd, out)
	if run == nil {
		return err
	}
	r := run.Result
	o := TaskOutcome{
		RunID: plan.RunID, Task: run.Task.ID, Agent: r.Agent, Status: r.Status,
		Admissible: r.HasOutput() && r.Checks.Admissible, Invariants: r.Checks.Invariants,
		OutputSHA256: r.OutputSHA256, Dir: run.Dir, Error: r.Error,
	}
	if asJSON {
		if jerr := c.writeJSON(o); jerr != nil {
			return errors.Join(err, jerr)
		}
		return err
	}
	text := fmt.Sprintf("task %s (agent %s): %s, admissible: %t → %s\n", o.Task, o.Agent, o.Status, o.Admissible, o.Dir)
	if o.Error != "" {
		text += fmt.Sprintf("error: %s\n", o.Error)
	}
	_, werr := io.WriteString(c.Stdout, text)
	return errors.Join(err, werr)
}
