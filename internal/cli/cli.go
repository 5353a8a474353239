package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/pipeline"
)

// Exit codes, one rule for every command and the Action (architecture
// §4.1): 0 success; 1 a run that started and failed; 2 refused before any
// agent started, nothing spent (usage, config, input, no usable agent, a
// spent budget, a sandbox strict mode cannot hold); 3 paused (ExitPaused).
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// CLI is optr's command line with its connections to the world.
type CLI struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads one variable; Environ lists them all (command agents
	// inherit it).
	Getenv  func(string) string
	Environ func() []string
	// Now is the clock.
	Now func() time.Time
	// IsTerminal reports whether a stream is an interactive terminal.
	IsTerminal func(any) bool
	// HTTPClient is used for every API call (nil: http.DefaultClient).
	HTTPClient *http.Client

	errOnce sync.Once
	errW    *lockedWriter
}

// New returns a CLI wired to the process's real streams and environment.
func New() *CLI {
	return &CLI{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now,
		IsTerminal: func(f any) bool {
			file, ok := f.(*os.File)
			return ok && term.IsTerminal(int(file.Fd()))
		},
	}
}

type command struct {
	name    string
	summary string
	run     func(c *CLI, ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"run", "run agents on an intent, select the best result and record it", (*CLI).cmdRun},
		{"action", "the GitHub Action entrypoint: read the event and inputs, then run, resume or skip", (*CLI).cmdAction},
		{"plan", "resolve a run into a GitHub Actions matrix of tasks (plan.json)", (*CLI).cmdPlan},
		{"task", "run one task of a plan and leave its result for upload", (*CLI).cmdTask},
		{"gather", "gather the tasks' results, select, record and commit", (*CLI).cmdGather},
		{"resume", "continue a paused run by answering its checkpoint", (*CLI).cmdResume},
		{"handle", "handle escalations in a .coordination directory", (*CLI).cmdHandle},
		{"ledger", "verify, show, checkpoint or prove the ledger", (*CLI).cmdLedger},
		{"init", "write a starter .github/optr.yml and workflow from the keys and CLIs found here", (*CLI).cmdInit},
		{"config", "check a config as a run would, or print the embedded default", (*CLI).cmdConfig},
		{"version", "print the version", (*CLI).cmdVersion},
	}
}

// Run runs the command named by args[0] and returns the process exit code.
func (c *CLI) Run(ctx context.Context, args []string) int {
	err := c.dispatch(ctx, args)
	return c.exitCode(err)
}

func (c *CLI) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		c.usage(c.Stderr)
		return usageErr(errors.New("no command given"))
	}
	switch args[0] {
	case "help":
		if len(args) > 1 {
			// optr help <command> is optr <command> --help.
			if cmd, ok := lookup(args[1]); ok {
				return cmd.run(c, ctx, []string{"--help"})
			}
			return usageErr(fmt.Errorf("unknown command %q\nrun 'optr help' for the list of commands", args[1]))
		}
		c.usage(c.Stdout)
		return nil
	case "-h", "--help":
		c.usage(c.Stdout)
		return nil
	case "-v", "--version":
		return c.cmdVersion(ctx, nil)
	}
	if cmd, ok := lookup(args[0]); ok {
		return cmd.run(c, ctx, args[1:])
	}
	return usageErr(fmt.Errorf("unknown command %q\nrun 'optr help' for the list of commands", args[0]))
}

// lookup finds the command called name.
func lookup(name string) (command, bool) {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

func (c *CLI) usage(w io.Writer) {
	fmt.Fprintln(w, "optr runs several AI agents on one intent, selects the best admissible result,")
	fmt.Fprintln(w, "and records the run in a hash-chained ledger.")
	fmt.Fprintln(w, "\nUsage: optr <command> [flags]\n\nCommands:")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w, "\nRun 'optr <command> --help' for a command's flags.")
	fmt.Fprintln(w, "\nExit codes: 0 success; 1 the run started and failed; 2 refused before any")
	fmt.Fprintln(w, "agent started, nothing spent (usage, config, no usable agent, budget spent);")
	fmt.Fprintln(w, "3 paused at a checkpoint.")
}

// UsageError is a wrong command line; it exits 2.
type UsageError struct{ Err error }

// Error implements error.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *UsageError) Unwrap() error { return e.Err }

func usageErr(err error) error { return &UsageError{Err: err} }

// ExitError carries an explicit exit code (a failed run is 1) and a message
// that was already shown, or is shown once by exitCode.
type ExitError struct {
	Code int
	Err  error
}

// Error implements error.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// errHelp is returned by parse when --help was asked for: exit 0.
var errHelp = errors.New("help requested")

func (c *CLI) exitCode(err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return ExitOK
	}
	var (
		ue  *UsageError
		ce  *config.Error
		ee  *ExitError
		nr  *inputfile.NotRegularError
		msg = err.Error()
	)
	code := ExitFailed
	switch {
	case errors.As(err, &ee):
		code = ee.Code
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &nr), pipeline.Refused(err):
		code = ExitUsage
	}
	if msg != "" {
		fmt.Fprintf(c.Stderr, "optr: %s\n", indentContinuation(msg))
	}
	return code
}

func indentContinuation(msg string) string {
	return strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", "\n  ")
}

// flags returns a FlagSet for a command that reports errors instead of exiting.
func (c *CLI) flags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	fs.SetInterspersed(true)
	fs.Bool("help", false, "show this help")
	fs.Lookup("help").Shorthand = "h"
	return fs
}

// parse parses args; --help prints the command's usage to stdout and
// returns errHelp; a bad flag is a usage error: the error and a one-line
// hint, not the whole usage.
func (c *CLI) parse(fs *pflag.FlagSet, usage string, args []string) error {
	return c.parseUsage(fs, func() string { return usage }, args)
}

// parseUsage is parse for a command whose usage depends on its arguments:
// usage is asked for after fs has parsed them.
func (c *CLI) parseUsage(fs *pflag.FlagSet, usage func() string, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			c.printUsage(c.Stdout, fs, usage())
			return errHelp
		}
		return usageErr(fmt.Errorf("%w\nrun 'optr help %s' for its flags", err, fs.Name()))
	}
	if h, _ := fs.GetBool("help"); h {
		c.printUsage(c.Stdout, fs, usage())
		return errHelp
	}
	return nil
}

func (c *CLI) printUsage(w io.Writer, fs *pflag.FlagSet, usage string) {
	fmt.Fprintf(w, "Usage: %s\n\nFlags:\n%s", usage, fs.FlagUsages())
}

func (c *CLI) environ() []string {
	if c.Environ == nil {
		return nil
	}
	return c.Environ()
}
