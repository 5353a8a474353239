package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/matrix"
)

const planUsage = `optr plan --intent TEXT [flags]

Resolves a run once — config, agents, constraints, intent, run id — without
running any agent, writes it to DIR/plan.json and prints the GitHub Actions
matrix {"include":[{"task":"<id>"},…]} on stdout: one task per agent, or for
a delegate pipeline one per specialist invocation of the topics its
coordinator (which runs here) planned. Each matrix job then runs 'optr task',
and one job 'optr gather' (architecture §4.11). Exit 2 for bad input, including
more than 256 tasks; 1 when the coordinator made no usable plan.`

// PlanOutcome is what `optr plan --json` prints.
type PlanOutcome struct {
	RunID    string        `json:"run_id"`
	Workflow string        `json:"workflow"`
	Plan     string        `json:"plan"`
	Tasks    []matrix.Task `json:"tasks"`
	Matrix   matrix.Matrix `json:"matrix"`
}

func (c *CLI) cmdPlan(ctx context.Context, args []string) error {
	var f runFlags
	var out string
	fs := c.flags("plan")
	fs.StringVar(&f.config, "config", config.DefaultPath, "config file (optional; without it the embedded default is used)")
	fs.StringVar(&f.pipeline, "pipeline", "", "plan this configured pipeline")
	fs.StringVar(&f.workflow, "workflow", "local", "workflow name (a slug: [a-z0-9._-], at most 64 characters)")
	fs.StringVar(&f.intent, "intent", "", "what to do")
	fs.StringVar(&f.intentFile, "intent-file", "", "read the intent from this file ('-' for stdin)")
	fs.StringArrayVar(&f.constraints, "constraint", nil, "add a constraint by name (repeatable)")
	fs.StringSliceVar(&f.agents, "agents", nil, "plan only these agents (comma-separated)")
	fs.StringVar(&out, "out", "optr-plan", "directory to write plan.json to")
	fs.StringVar(&f.runID, "run-id", "", "run id (default: generated from the time)")
	fs.StringVar(&f.datalake, "datalake", ".optr", "the datalake 'optr gather' will record in: no agent's change may touch it")
	fs.StringVar(&f.ledger, "ledger", "", "the ledger 'optr gather' will append to (default <datalake>/ledger.jsonl)")
	fs.BoolVar(&f.json, "json", false, "print the plan's outcome as JSON instead of the matrix")
	if err := c.parse(fs, planUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(errArgs("plan", fs.Args()))
	}
	// The plan's own datalake is a scratch one; --datalake and --ledger
	// are the gather's, which agents' changes must leave alone.
	spec, err := c.spec(&f, fs.Changed("config"))
	if err != nil {
		return err
	}
	plan, _, err := matrix.MakePlan(ctx, spec, c.deps(), 0, "")
	var failed *matrix.PlanFailedError
	if errors.As(err, &failed) {
		return &ExitError{Code: ExitFailed, Err: err}
	}
	if err != nil {
		return err
	}
	m, err := plan.Matrix()
	if err != nil {
		return usageErr(err)
	}
	path, err := plan.Write(out)
	if err != nil {
		return err
	}
	if !f.json {
		_, err = fmt.Fprintf(c.Stdout, "%s\n", m)
		return err
	}
	var mm matrix.Matrix
	_ = json.Unmarshal(m, &mm) // just encoded
	return c.writeJSON(PlanOutcome{RunID: plan.RunID, Workflow: plan.Workflow, Plan: path, Tasks: plan.Tasks, Matrix: mm})
}
