package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/config"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/datalake"
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
	ledgerPath := ledgerPath(*ledgerFile, *lakeDir)
	cp, err := checkpoint.Load(datalake.Open(*lakeDir).CheckpointPath(*id))
	if err != nil {
		return usageErr(fmt.Errorf("load checkpoint %s: %w", *id, err))
	}
	if err := c.ensureOpen(cp, ledgerPath); err != nil {
		return err
	}
	d, err := checkpoint.Decide(cp, *choose, c.user(), *note, checkpoint.SourceCLI)
	if err != nil {
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
	rep, err := pipeline.Resume(cp, cfg, *lakeDir, ledgerPath, wd)
	if err != nil {
		return err
	}
	drv := &pipeline.Driver{Deps: c.deps(), Deliverer: deliverer(cfg)}
	if err := drv.Resume(ctx, rep, cp, d); err != nil {
		return err
	}
	return c.conclude(rep, *asJSON)
}

// ensureOpen refuses a checkpoint the ledger shows decided (or never raised).
func (c *CLI) ensureOpen(cp checkpoint.Checkpoint, ledgerPath string) error {
	f, err := os.Open(ledgerPath)
	if err != nil {
		return usageErr(fmt.Errorf("read the ledger: %w", err))
	}
	defer f.Close()
	open, d, err := checkpoint.Status(f, cp.ID)
	if err != nil {
		return err
	}
	if d != nil {
		return usageErr(errors.New(checkpoint.AlreadyDecidedReply(cp, *d)))
	}
	if !open {
		return usageErr(fmt.Errorf("checkpoint %s is not in the ledger %s", cp.ID, ledgerPath))
	}
	return nil
}
