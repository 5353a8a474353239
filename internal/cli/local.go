package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/version"
)

// ExitPaused is the exit code of a run that paused at a checkpoint, so a
// script never mistakes a pause for success (architecture §4.1).
const ExitPaused = 3

// runLocal runs spec in this process through the pipeline's driver: live
// progress on stderr, the ledger appended locally, checkpoints asked at a
// terminal; the score table and outcome on stdout (or JSON with --json).
func (c *CLI) runLocal(ctx context.Context, spec pipeline.Spec, interactive string, asJSON bool) error {
	d, obs := c.driver(spec.Config, interactive)
	return c.drive(ctx, d, obs, spec, asJSON)
}

// driver is the CLI's pipeline.Driver under cfg, the one for every
// command that drives a run (run, gather, resume): live progress on
// stderr (the returned observer, to close), the ledger appended locally,
// checkpoints asked at a terminal as interactive says, π*'s change
// applied with changes.mode apply.
func (c *CLI) driver(cfg *config.Config, interactive string) (*pipeline.Driver, *localObserver) {
	obs := &localObserver{c: c}
	return &pipeline.Driver{Deps: c.deps(), Observer: obs, Asker: c.asker(interactive), Deliverer: deliverer(cfg)}, obs
}

// drive runs spec through d, whose live progress obs shows, and reports
// the outcome: the score table (or JSON), or the error, also as JSON with
// --json.
func (c *CLI) drive(ctx context.Context, d *pipeline.Driver, obs *localObserver, spec pipeline.Spec, asJSON bool) error {
	rep, err := d.Run(ctx, spec)
	obs.close()
	if err != nil {
		if asJSON && !pipeline.IsInputError(err) {
			_ = c.writeJSON(outcome(rep, err)) // the error is reported below in any case
		}
		return err
	}
	return c.conclude(rep, asJSON)
}

// conclude prints a finished, failed or paused run and maps its status to
// the exit code.
func (c *CLI) conclude(rep *pipeline.Outcome, asJSON bool) error {
	if err := c.report(rep, asJSON); err != nil {
		return fmt.Errorf("write the outcome: %w", err)
	}
	switch rep.Status {
	case status.Failed:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("run %s failed: %s", rep.Spec.RunID, rep.Message)}
	case status.Paused:
		return &ExitError{Code: ExitPaused, Err: fmt.Errorf("run %s paused at checkpoint %s", rep.Spec.RunID, rep.CheckpointID)}
	}
	return nil
}

// deliverer is how the CLI delivers π*'s code change: changes.mode apply
// applies it to the working tree; pull requests are the Action's, so with
// pull-request the patch stays in the run's directory.
func deliverer(cfg *config.Config) pipeline.Deliverer {
	if cfg != nil && cfg.Changes.Mode == config.ChangesApply {
		return pipeline.ApplyChange{}
	}
	return nil
}

func (c *CLI) deps() pipeline.Deps {
	return pipeline.Deps{
		// The watcher's own log lines stay in the run's
		// .coordination/watcher-log.md: each decision is on the line of
		// the agent it concerns (failure), so a failure takes one line.
		Getenv: c.Getenv, Environ: c.environ(), HTTPClient: c.HTTPClient, Now: c.Now,
		Logf: func(format string, args ...any) { fmt.Fprintf(c.errOut(), "[optr] "+format+"\n", args...) },
	}
}

// localObserver shows a local run on stderr: the live table while agents
// run (redrawn in place on a terminal).
type localObserver struct {
	c  *CLI
	lv *live
}

// Started implements pipeline.Observer.
func (o *localObserver) Started(_ context.Context, p *pipeline.Prepared) {
	o.lv = o.c.newLive(p.AgentNames)
}

// Event implements pipeline.Observer.
func (o *localObserver) Event(ev executor.Event) {
	if o.lv != nil {
		o.lv.event(ev)
	}
}

// Finished implements pipeline.Observer.
func (o *localObserver) Finished(context.Context, *pipeline.Outcome) { o.close() }

// Stopped implements pipeline.Observer.
func (o *localObserver) Stopped(context.Context, error) { o.close() }

func (o *localObserver) close() {
	if o.lv != nil {
		o.lv.close()
		o.lv = nil
	}
}

// terminalAsker asks at the terminal; it answers nothing when interactive
// is never, or auto without a terminal on stdin and stderr.
type terminalAsker struct{ c *CLI }

func (c *CLI) asker(interactive string) pipeline.Asker {
	ask := interactive == interactiveAlways ||
		(interactive == interactiveAuto && c.IsTerminal != nil && c.IsTerminal(c.Stdin) && c.IsTerminal(c.Stderr))
	if !ask {
		return nil
	}
	return terminalAsker{c: c}
}

// Ask implements pipeline.Asker.
func (a terminalAsker) Ask(ctx context.Context, cp checkpoint.Checkpoint) (checkpoint.Decision, bool) {
	d, err := checkpoint.Prompt(ctx, a.c.Stdin, a.c.Stderr, cp)
	if err != nil {
		fmt.Fprintf(a.c.errOut(), "[optr] no answer (%v); the run stays paused\n", err)
		return d, false
	}
	d.By, d.Source = a.c.user(), checkpoint.SourceTerminal
	return d, true
}

// Paused implements pipeline.Asker; the outcome printed afterwards says
// how to answer.
func (terminalAsker) Paused(context.Context, *pipeline.Outcome, checkpoint.Checkpoint) {}

// Outcome is what `optr run --json` and `optr resume --json` print.
type Outcome struct {
	Version      string        `json:"version"`
	RunID        string        `json:"run_id"`
	Workflow     string        `json:"workflow"`
	Status       status.Status `json:"status"`
	Selected     string        `json:"selected"`
	ResultFile   string        `json:"result_file,omitempty"`
	LedgerHash   string        `json:"ledger_hash,omitempty"`
	CheckpointID string        `json:"checkpoint_id,omitempty"`
	Message      string        `json:"message,omitempty"`
	Error        string        `json:"error,omitempty"`
	// Tokens and CostUSD are the run's totals, judges and analyses
	// included: the known part, null when nothing of it is known.
	// TokensUnknown and CostUnknown say that some part is unknown
	// (architecture §4.17: unknown is never 0).
	Tokens        *int64              `json:"tokens"`
	CostUSD       *float64            `json:"cost_usd"`
	TokensUnknown bool                `json:"tokens_unknown,omitempty"`
	CostUnknown   bool                `json:"cost_unknown,omitempty"`
	Table         []pipeline.TableRow `json:"table"`
	RunDir        string              `json:"run_dir,omitempty"`
}

// outcome builds the JSON outcome of rep (nil when the run never started)
// and err (nil when it ran to its end).
func outcome(rep *pipeline.Outcome, err error) Outcome {
	out := Outcome{Version: version.String(), Table: []pipeline.TableRow{}}
	if err != nil {
		out.Status, out.Error = status.Failed, err.Error()
	}
	if rep == nil {
		return out
	}
	out.RunID, out.Workflow, out.Selected = rep.Spec.RunID, rep.Spec.Workflow, rep.Selected
	if err == nil {
		out.Status = rep.Status
	}
	out.ResultFile, out.LedgerHash, out.CheckpointID, out.Message = rep.ResultPath, rep.LedgerHash, rep.CheckpointID, rep.Message
	total := rep.Total()
	_, costKnown := total.Cost()
	out.Tokens, out.CostUSD = total.TokensOrNil(), total.USDOrNil()
	out.TokensUnknown, out.CostUnknown = !total.TokensKnown(), !costKnown
	if t := rep.Table(); t != nil {
		out.Table = t
	}
	if rep.RunDir != "" {
		out.RunDir = rep.Spec.DisplayPath(rep.RunDir)
	}
	return out
}

func (c *CLI) writeJSON(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *CLI) report(rep *pipeline.Outcome, asJSON bool) error {
	if asJSON {
		return c.writeJSON(outcome(rep, nil))
	}
	v := rep.View()
	w := &strings.Builder{} // written at once: one write error to check
	io.WriteString(w, progress.TextTable(v.Table, v.Selected))
	if len(v.Unverified) > 0 {
		fmt.Fprintf(w, "not verified: %s (the intent names them, but the config defines no such constraint and no judge agent is configured: they neither block nor score)\n",
			markdown.OneLine(strings.Join(v.Unverified, ", "), 200))
	}
	if rep.DetailsText != "" {
		fmt.Fprintf(w, "\n%s", strings.TrimRight(rep.DetailsText, "\n")+"\n")
	}
	fmt.Fprintf(w, "\nrun %s (workflow %s): %s\n", rep.Spec.RunID, rep.Spec.Workflow, rep.Status)
	switch {
	case rep.Selected != "" && rep.ResultPath != "":
		fmt.Fprintf(w, "π* = %s → %s\n", rep.Selected, rep.ResultPath)
	case rep.Selected == "" && rep.ResultPath != "":
		fmt.Fprintf(w, "result → %s\n", rep.ResultPath)
	case rep.Selected != "" && rep.Status == status.Paused:
		fmt.Fprintf(w, "π* = %s (not recorded yet: the run waits at a checkpoint)\n", rep.Selected)
	}
	if rep.Delivery.Applied {
		fmt.Fprintf(w, "applied π*'s change to the working tree and index (git apply --index): review it with git diff --cached\n")
	}
	if rep.Message != "" {
		fmt.Fprintf(w, "%s\n", rep.Message)
	}
	if rep.LedgerHash != "" {
		fmt.Fprintf(w, "ledger %s head %s\n", rep.Spec.DisplayPath(rep.Spec.LedgerPath), rep.LedgerHash)
	}
	if rep.Status == status.Paused {
		c.pausedOptions(w, rep)
	}
	_, err := io.WriteString(c.Stdout, w.String())
	return err
}

// pausedOptions says how to answer the checkpoint rep waits at: its
// options as saved, the recommended one marked and why, and the command.
func (c *CLI) pausedOptions(w io.Writer, rep *pipeline.Outcome) {
	fmt.Fprintf(w, "paused at checkpoint %s (%s). Options:\n", rep.CheckpointID, rep.Trigger)
	cp, err := checkpoint.Load(datalake.Open(rep.Spec.Datalake).CheckpointPath(rep.CheckpointID))
	if err != nil { // the saved state is the source; without it, the standard options
		cp = checkpoint.Checkpoint{Options: checkpoint.StandardOptions(rep.Trigger)}
	}
	for _, o := range cp.Options {
		mark := ""
		if o.N == cp.Recommended {
			mark = " (recommended)"
		}
		fmt.Fprintf(w, "  %d  %s%s: %s\n", o.N, o.Label, mark, o.Description)
	}
	if cp.Recommendation != "" {
		fmt.Fprintf(w, "recommendation: %s\n", markdown.OneLine(cp.Recommendation, 200))
	}
	fmt.Fprintf(w, "answer with: optr resume --checkpoint %s --choose N [--note TEXT]%s\n", rep.CheckpointID, resumeFlags(rep.Spec))
}

// resumeFlags are the flags `optr resume` needs to find what this run used
// when they differ from the defaults.
func resumeFlags(s pipeline.Spec) string {
	out := ""
	if s.Config != nil && s.Config.Path != "" && filepath.Clean(s.Config.Path) != filepath.Clean(config.DefaultPath) {
		out += " --config " + s.Config.Path
	}
	if s.Datalake != "" && s.Datalake != ".optr" {
		out += " --datalake " + s.Datalake
	}
	return out
}
