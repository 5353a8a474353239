package cli

import (
	"context"
	"fmt"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/pipeline"
)

// pauseLocal raises the checkpoint of a paused run. At a terminal (or with
// --interactive always) it asks and carries the answer out at once;
// otherwise, or when no answer comes, it saves the checkpoint and the run
// stays paused until `optr resume`.
func (c *CLI) pauseLocal(ctx context.Context, rep *pipeline.Report, interactive string) error {
	cp, err := pipeline.Raise(rep, c.Now())
	if err != nil {
		return err
	}
	ask := interactive == interactiveAlways ||
		(interactive == interactiveAuto && c.IsTerminal != nil && c.IsTerminal(c.Stdin) && c.IsTerminal(c.Stderr))
	if !ask {
		return pipeline.Pause(rep, cp, c.Now())
	}
	d, perr := checkpoint.Prompt(ctx, c.Stdin, c.Stderr, cp)
	if err := pipeline.Pause(rep, cp, c.Now()); err != nil {
		return err
	}
	if perr != nil {
		fmt.Fprintf(c.Stderr, "[optr] no answer (%v); the run stays paused\n", perr)
		return nil
	}
	d.By, d.Source = c.user(), checkpoint.SourceTerminal
	return pipeline.Apply(rep, cp, d, c.Now())
}

// user names the local person deciding, for the ledger.
func (c *CLI) user() string {
	for _, k := range []string{"OPTR_USER", "USER", "USERNAME"} {
		if v := c.Getenv(k); v != "" {
			return v
		}
	}
	return "local user"
}
