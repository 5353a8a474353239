package cli

import (
	"context"
	"errors"

	"github.com/optr-dev/optr/internal/actionrun"
)

const actionUsage = `optr action

The GitHub Action's entrypoint: reads GITHUB_EVENT_NAME, GITHUB_EVENT_PATH
and the INPUT_* variables, then runs, resumes, aborts or skips. Exits 0 for
completed, paused and skipped runs, 1 for a run that started and failed, 2
for a run refused before any agent started (bad input or config, no usable
agent, a spent budget).`

func (c *CLI) cmdAction(ctx context.Context, args []string) error {
	fs := c.flags("action")
	if err := c.parse(fs, actionUsage, args); err != nil {
		return err
	}
	job := &actionrun.Job{
		Getenv: c.Getenv, Environ: c.environ(), Stdout: c.Stdout, HTTPClient: c.HTTPClient, Now: c.Now,
	}
	err := job.Run(ctx)
	var ue *actionrun.UsageError
	var fe *actionrun.FailedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return usageErr(err)
	case errors.As(err, &fe):
		return &ExitError{Code: ExitFailed, Err: err}
	}
	return err
}
