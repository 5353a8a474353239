package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/bounded"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/pipeline"
)

const runUsage = `optr run --intent TEXT [flags]

Runs every configured agent on the intent in parallel, checks each output
against the constraints, selects the best admissible result (π*), writes the
run into the datalake and appends it to the ledger.`

// runFlags are the flags of `optr run`.
type runFlags struct {
	config      string
	workflow    string
	intent      string
	intentFile  string
	constraints []string
	commaList   []string
	pipeline    string
	agents      []string
	datalake    string
	ledger      string
	interactive string
	json        bool
	runID       string
}

func (c *CLI) cmdRun(ctx context.Context, args []string) error {
	var f runFlags
	fs := c.flags("run")
	fs.StringVar(&f.config, "config", config.DefaultPath, "config file (optional; without it the embedded default is used)")
	fs.StringVar(&f.workflow, "workflow", "local", "workflow name (a slug: [a-z0-9._-], at most 64 characters)")
	fs.StringVar(&f.intent, "intent", "", "what to do")
	fs.StringVar(&f.intentFile, "intent-file", "", "read the intent from this file ('-' for stdin)")
	fs.StringArrayVar(&f.constraints, "constraint", nil, "add a constraint by name (repeatable)")
	fs.StringSliceVar(&f.commaList, "constraints", nil, "add constraints by name, comma-separated (the seed executor's form)")
	fs.StringVar(&f.pipeline, "pipeline", "", "run this configured pipeline")
	fs.StringSliceVar(&f.agents, "agents", nil, "run only these agents (comma-separated)")
	fs.StringVar(&f.datalake, "datalake", ".optr", "datalake directory")
	fs.StringVar(&f.ledger, "ledger", "", "ledger file (default <datalake>/ledger.jsonl)")
	fs.StringVar(&f.interactive, "interactive", "auto", "ask at checkpoints: auto (when a terminal), always, never")
	fs.BoolVar(&f.json, "json", false, "print the outcome as JSON on stdout")
	fs.StringVar(&f.runID, "run-id", "", "run id (default: generated from the time)")
	if err := c.parse(fs, runUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("%w (quote the intent and pass it with --intent)", errArgs("run", fs.Args())))
	}
	mode, err := parseInteractive(f.interactive)
	if err != nil {
		return err
	}
	spec, err := c.spec(&f, fs.Changed("config"))
	if err != nil {
		return err
	}
	return c.runLocal(ctx, spec, mode, f.json)
}

// loadConfig reads the config file, or the embedded default when the
// default path does not exist.
func (c *CLI) loadConfig(path string, explicit bool) (*config.Config, error) {
	cfg, err := config.LoadOrDefault(path, explicit, c.Getenv)
	if errors.Is(err, config.ErrMissing) {
		return nil, usageErr(err)
	}
	return cfg, err
}

func (c *CLI) readIntent(text, file string) (string, error) {
	switch {
	case text != "" && file != "":
		return "", usageErr(errors.New("give either --intent or --intent-file, not both"))
	case file == "-":
		data, err := bounded.ReadAll(c.Stdin, maxIntent)
		if err != nil {
			return "", usageErr(fmt.Errorf("read the intent from stdin: %w", err))
		}
		if strings.TrimSpace(string(data)) == "" {
			return "", usageErr(fmt.Errorf("the intent on stdin (--intent-file -) is %s: write what to do into it", emptiness(data)))
		}
		text = string(data)
	case file != "":
		data, err := inputfile.ReadFile(file, maxIntent)
		if err != nil {
			return "", usageErr(fmt.Errorf("read the intent from %s: %w", file, err))
		}
		if strings.TrimSpace(string(data)) == "" {
			return "", usageErr(fmt.Errorf("the intent file %s is %s: write what to do into it", file, emptiness(data)))
		}
		text = string(data)
	}
	if strings.TrimSpace(text) == "" {
		return "", usageErr(errors.New("no intent: give --intent TEXT or --intent-file FILE"))
	}
	return text, nil
}

// emptiness says what an intent with nothing to do holds: nothing, or
// only whitespace.
func emptiness(data []byte) string {
	if len(data) == 0 {
		return "empty"
	}
	return fmt.Sprintf("only whitespace (%d bytes)", len(data))
}

// runIDUnused refuses a run id the ledger already records (a run id is
// recorded once, architecture §4.3), reading the active segment and the sealed
// segments' run indexes, never the whole ledger. A ledger that cannot be
// read is left to the preflight, which says what is wrong with it.
func runIDUnused(runID, ledgerPath string) error {
	if ok, err := ledger.HasRun(ledgerPath, runID); err == nil && ok {
		return usageErr(fmt.Errorf("run id %q is already in the ledger %s (a run id is recorded once); choose another --run-id, or leave it out to get a new one", runID, ledgerPath))
	}
	return nil
}

// maxIntent bounds an intent: larger ones are almost certainly a mistake.
const maxIntent = 1 << 20

func ledgerPath(ledger, dir string) string {
	if ledger != "" {
		return ledger
	}
	return datalake.Open(dir).LedgerPath()
}

func (c *CLI) localRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return c.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Interactive modes.
const (
	interactiveAuto   = "auto"
	interactiveAlways = "always"
	interactiveNever  = "never"
)

func parseInteractive(s string) (string, error) {
	switch s {
	case interactiveAuto, interactiveAlways, interactiveNever:
		return s, nil
	}
	return "", usageErr(fmt.Errorf("--interactive must be auto, always or never, not %q", s))
}

// spec is the run the flags ask for: the intent read, the config loaded
// (configChanged: --config was given, so a missing file is an error), a
// run id generated when none was given, the working directory as the
// workspace.
func (c *CLI) spec(f *runFlags, configChanged bool) (pipeline.Spec, error) {
	intent, err := c.readIntent(f.intent, f.intentFile)
	if err != nil {
		return pipeline.Spec{}, err
	}
	cfg, err := c.loadConfig(f.config, configChanged)
	if err != nil {
		return pipeline.Spec{}, err
	}
	if f.runID == "" {
		f.runID = c.localRunID() // the time and 24 random bits: new
	} else if err := runIDUnused(f.runID, ledgerPath(f.ledger, f.datalake)); err != nil {
		return pipeline.Spec{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return pipeline.Spec{}, fmt.Errorf("find the working directory: %w", err)
	}
	return pipeline.Spec{
		Config: cfg, Workflow: f.workflow, RunID: f.runID, Intent: intent,
		Constraints: append(f.constraints, f.commaList...), Pipeline: f.pipeline, Agents: f.agents,
		Datalake: f.datalake, LedgerPath: ledgerPath(f.ledger, f.datalake), Dir: wd, ConfigPath: f.config,
	}, nil
}
