package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/config"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/pipeline"
)

const resumeUsage = `optr resume --checkpoint ID --choose N [--note TEXT]

Answers the checkpoint a paused run waits on and carries the choice out:
Proceed selects and records the run, Skip records it with nothing selected,
Abort ends it as failed, Pause leaves it paused.`

func (c *CLI) cmdResume(ctx context.Context, args []string) error {
	fs := c.flags("resume")
	id := fs.String("checkpoint", "", "the checkpoint id (printed when the run paused)")
	choose := fs.Int("choose", 0, "the option number")
	note := fs.String("note", "", "an optional note for the ledger")
	cfgPath := fs.String("config", config.DefaultPath, "config file (as for the paused run)")
	lakeDir := fs.String("datalake", ".optr", "datalake directory")
	ledgerFile := fs.String("ledger", "", "ledger file (default <datalake>/ledger.jsonl)")
	asJSON := fs.Bool("json", false, "print the outcome as JSON on stdout")
	if err := c.parse(fs, resumeUsage, args); err != nil {
		return err
	}
	if *id == "" || *choose == 0 {
		c.printUsage(c.Stderr, fs, resumeUsage)
		return usageErr(errors.New("resume needs --checkpoint ID and --choose N"))
	}
	if err := checkpoint.ValidateID(*id); err != nil {
		return usageErr(err)
	}
	cfg, err := c.loadConfig(*cfgPath, fs.Changed("config"))
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	where := pipeline.Spec{Config: cfg, Datalake: *lakeDir, LedgerPath: ledgerPath(*ledgerFile, *lakeDir), Dir: wd}
	drv, obs := c.driver(cfg, interactiveNever)
	cp, err := drv.OpenCheckpoint(ctx, where, "", *id)
	if decided := (*pipeline.DecidedError)(nil); errors.As(err, &decided) {
		return usageErr(fmt.Errorf("%w; to try again, start a new run with optr run", err))
	}
	if err != nil {
		if errors.Is(err, checkpoint.ErrNotFound) {
			return usageErr(fmt.Errorf("%w (ledger %s)", err, where.LedgerPath))
		}
		return usageErr(err)
	}
	d, err := checkpoint.Decide(cp, *choose, c.user(), *note, checkpoint.SourceCLI)
	if err != nil {
		return usageErr(err)
	}
	rep, err := drv.Answer(ctx, cp, d, where)
	obs.close()
	if err != nil {
		return err
	}
	return c.conclude(rep, *asJSON)
}
