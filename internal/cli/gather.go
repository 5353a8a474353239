package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/matrix"
)

const gatherUsage = `optr gather --plan DIR/plan.json --from DIR [flags]

Reads every optr-task-*/result.json below --from (as actions/download-artifact
lays them out, with or without merge-multiple), refuses results of another
run, intent or config, duplicates, unknown tasks and outputs whose hash does
not match (each named), counts a planned task without a result as failed,
then selects, writes the run into the datalake and appends it to the ledger
exactly as 'optr run' does. Exit codes as 'optr run'.`

func (c *CLI) cmdGather(ctx context.Context, args []string) error {
	var planPath, from, lake, ledger, interactive string
	var asJSON bool
	fs := c.flags("gather")
	fs.StringVar(&planPath, "plan", "optr-plan/plan.json", "the plan optr plan wrote")
	fs.StringVar(&from, "from", "optr-tasks", "directory holding the tasks' optr-task-<ID>/ folders")
	fs.StringVar(&lake, "datalake", ".optr", "datalake directory")
	fs.StringVar(&ledger, "ledger", "", "ledger file (default <datalake>/ledger.jsonl)")
	fs.StringVar(&interactive, "interactive", "auto", "ask at checkpoints: auto (when a terminal), always, never")
	fs.BoolVar(&asJSON, "json", false, "print the outcome as JSON on stdout")
	if err := c.parse(fs, gatherUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(errArgs("gather", fs.Args()))
	}
	mode, err := parseInteractive(interactive)
	if err != nil {
		return err
	}
	plan, err := matrix.ReadPlan(planPath)
	if err != nil {
		return usageErr(err)
	}
	g, err := matrix.Gather(ctx, plan, from)
	if err != nil {
		return err
	}
	for _, r := range g.Refused {
		fmt.Fprintf(c.errOut(), "[optr] refused %s\n", r)
	}
	for _, id := range g.Missing {
		fmt.Fprintf(c.errOut(), "[optr] task %s left no result below %s: counted as failed\n", id, from)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	spec, err := plan.Spec(lake, ledgerPath(ledger, lake), wd)
	if err != nil {
		return usageErr(err)
	}
	gm, err := matrix.NewGatherMode(plan, g)
	if err != nil {
		return usageErr(err)
	}
	d, obs := c.driver(spec.Config, mode)
	d.Mode = gm
	return c.drive(ctx, d, obs, spec, asJSON)
}
