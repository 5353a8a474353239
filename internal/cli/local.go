package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
)

// runLocal runs spec in this process: live progress on stderr, the score
// table and outcome on stdout (or JSON with --json).
func (c *CLI) runLocal(ctx context.Context, spec pipeline.Spec, interactive string, asJSON bool) error {
	deps := c.deps()
	p, err := pipeline.Prepare(spec, deps)
	if err != nil {
		return err
	}
	lv := newLive(c.errOut(), c.IsTerminal != nil && c.IsTerminal(c.Stderr), c.Now, p.AgentNames)
	p.SetOnEvent(lv.event)
	rep, err := p.Execute(ctx)
	lv.close()
	if err != nil {
		return err
	}
	pipeline.Decide(rep)
	if rep.Status == pipeline.Paused {
		if err := c.pauseLocal(ctx, rep, interactive); err != nil {
			return err
		}
	} else if err := pipeline.Record(rep, c.Now()); err != nil {
		return err
	}
	c.report(rep, asJSON)
	if rep.Status == pipeline.Failed {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("run %s failed: %s", rep.Spec.RunID, rep.Message)}
	}
	return nil
}

func (c *CLI) deps() pipeline.Deps {
	return pipeline.Deps{
		Getenv: c.Getenv, Environ: c.environ(), HTTPClient: c.HTTPClient, Now: c.Now, Stderr: c.errOut(),
		Logf: func(format string, args ...any) { fmt.Fprintf(c.errOut(), "[optr] "+format+"\n", args...) },
	}
}

// Outcome is what `optr run --json` prints.
type Outcome struct {
	RunID        string              `json:"run_id"`
	Workflow     string              `json:"workflow"`
	Status       pipeline.Status     `json:"status"`
	Selected     string              `json:"selected"`
	ResultFile   string              `json:"result_file,omitempty"`
	LedgerHash   string              `json:"ledger_hash,omitempty"`
	CheckpointID string              `json:"checkpoint_id,omitempty"`
	Message      string              `json:"message,omitempty"`
	Table        []pipeline.TableRow `json:"table"`
	Datalake     string              `json:"run_dir,omitempty"`
}

func (c *CLI) report(rep *pipeline.Report, asJSON bool) {
	if asJSON {
		out := Outcome{
			RunID: rep.Spec.RunID, Workflow: rep.Spec.Workflow, Status: rep.Status, Selected: rep.Selected,
			ResultFile: rep.ResultPath, LedgerHash: rep.LedgerHash, CheckpointID: rep.CheckpointID,
			Message: rep.Message, Table: rep.Table(), Datalake: rep.Run.Dir,
		}
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return
	}
	v := rep.View()
	io.WriteString(c.Stdout, progress.TextTable(v.Table, v.Selected))
	fmt.Fprintf(c.Stdout, "\nrun %s (workflow %s): %s\n", rep.Spec.RunID, rep.Spec.Workflow, rep.Status)
	if rep.Selected != "" {
		fmt.Fprintf(c.Stdout, "π* = %s → %s\n", rep.Selected, rep.ResultPath)
	}
	if rep.Message != "" {
		fmt.Fprintf(c.Stdout, "%s\n", rep.Message)
	}
	if rep.LedgerHash != "" {
		fmt.Fprintf(c.Stdout, "ledger %s head %s\n", rep.Spec.LedgerPath, rep.LedgerHash)
	}
	if rep.Status == pipeline.Paused {
		fmt.Fprintf(c.Stdout, "paused at checkpoint %s: answer with `optr resume --checkpoint %s --choose N`\n", rep.CheckpointID, rep.CheckpointID)
	}
}
