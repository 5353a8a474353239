package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/procgroup"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/program"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
	sandboxenv "github.com/optr-dev/optr/internal/sandbox/env"
)

// tailBytes is how much of a failing command's combined output its Reason
// quotes (the end, where test runners and linters print their verdict).
const tailBytes = 1024

// waitDelay bounds how long a finished or killed check may hold its output
// pipes open through a leftover child process.
const waitDelay = 2 * time.Second

func init() {
	register(config.CheckCommand, kind{
		build: newCommand,
		describe: func(c config.Constraint) string {
			return fmt.Sprintf("the command %s exits 0 with the output on its stdin", quote(strings.Join(c.Run, " "), maxQuote))
		},
		program:   true,
		preflight: commandPreflight,
	})
}

// commandPreflight checks that c's program resolves where the check will
// run it: relative to the workspace (an agent's worktree, with code
// changes, is a checkout of it) or on the check's PATH.
func commandPreflight(c config.Constraint, opts Options) (string, error) {
	if len(c.Run) == 0 || c.Run[0] == "" {
		return "", nil // newCommand refuses it
	}
	if _, err := program.Resolve(c.Run[0], opts.Dir, searchPath(opts.Env)); err != nil {
		return "run[0]", fmt.Errorf("the check cannot run, so it could pass no output: %w; the check runs in %s with that PATH", err, dirName(opts.Dir))
	}
	return "", nil
}

// searchPath is the PATH a command with environment env is found on: its
// own, else optr's, where exec.Command would have looked.
func searchPath(env []string) string {
	if p, ok := sandboxenv.Lookup(env, "PATH"); ok {
		return p
	}
	return os.Getenv("PATH")
}

// commandCheck runs an executable with the output on stdin; exit status 0
// passes. It runs in the workspace (or the directory WithDir gives) with the base environment plus
// OPTR_CONSTRAINT, in a process group of its own that is killed as a whole
// when the check times out.
type commandCheck struct {
	name    string
	argv    []string
	sandbox *sandbox.Run
	dir     string
	env     []string
	timeout time.Duration
	redact  *redact.Redactor
}

func newCommand(name string, c config.Constraint, opts Options) (Checker, error) {
	if len(c.Run) == 0 || c.Run[0] == "" {
		return nil, errors.New("run is empty: set run: to the command's argv, e.g. [\"./scripts/check.sh\"]")
	}
	env := append(append([]string(nil), opts.Env...), "OPTR_CONSTRAINT="+name)
	return &commandCheck{
		name:    name,
		sandbox: opts.Sandbox,
		argv:    append([]string(nil), c.Run...),
		dir:     opts.Dir,
		env:     env,
		timeout: timeoutOr(c.Timeout.D()),
		redact:  opts.Redactor,
	}, nil
}

func (c *commandCheck) Check(ctx context.Context, output string) (Outcome, error) {
	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	dir := dirOr(ctx, c.dir)
	cmd := exec.CommandContext(runCtx, c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(output)
	tail := &tailBuffer{max: tailBytes, redact: c.redact}
	cmd.Stdout = tail
	cmd.Stderr = tail
	var launch *sandbox.Launch
	if c.sandbox != nil {
		var err error
		launch, err = c.sandbox.Command(sandbox.Process{
			Name: "check-" + c.name, Dir: dir, WriteDir: dir != c.dir,
			Env:     []string{"OPTR_CONSTRAINT=" + c.name},
			Program: c.argv[0], // its install (an npm .bin link's package) is readable
		})
		if err != nil {
			return Outcome{}, err
		}
		defer launch.Finish()
		cmd.Env = launch.Env()
	}
	// The program is found the way preflight found it: in dir or on the
	// PATH the check runs with. One that cannot run is an error, which
	// fails a hard constraint (Evaluate), never a pass.
	path, err := program.Resolve(c.argv[0], dir, searchPath(cmd.Env))
	if err != nil {
		return Outcome{}, fmt.Errorf("command %s cannot run in %s: %w; check run: in the config and that the program is installed", quote(c.argv[0], maxQuote), dirName(dir), err)
	}
	cmd.Path, cmd.Err = path, nil
	grp := procgroup.New(cmd, waitDelay)
	err = c.run(runCtx, launch, cmd)
	grp.Finish() // nothing the check started outlives it
	if launch != nil {
		if _, refused := launch.Finish(); refused != nil && ctx.Err() == nil {
			return Outcome{Reason: refused.Error()}, nil // what the sandbox stopped fails the check
		}
	}
	var exit *exec.ExitError
	var startErr *sandbox.StartError
	switch {
	case errors.As(err, &startErr):
		return Outcome{Reason: fmt.Sprintf("command %s could not start: %v", c.argv[0], err)}, nil
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: the command exited 0, but a child it left behind
		// held the output pipes open until waitDelay cut them.
		return Outcome{Pass: true}, nil
	case ctx.Err() != nil:
		return Outcome{}, fmt.Errorf("command %s stopped before it finished: %w", c.argv[0], context.Cause(ctx))
	case runCtx.Err() != nil:
		// The output kept the check busy past its limit: that is the
		// output's fault as far as anyone can tell, so it fails rather than
		// going unverified (which would let a hanging output through).
		return Outcome{Reason: fmt.Sprintf("command %s did not finish within %s; its process group was killed%s",
			c.argv[0], c.timeout, tail.suffix())}, nil
	case errors.As(err, &exit) && exit.Exited():
		return Outcome{Reason: fmt.Sprintf("command %s exited with status %d%s", c.argv[0], exit.ExitCode(), tail.suffix())}, nil
	case errors.As(err, &exit):
		return Outcome{Reason: fmt.Sprintf("command %s was stopped: %s%s", c.argv[0], exit, tail.suffix())}, nil
	default:
		return Outcome{}, fmt.Errorf("run command %s in %s: %w; check run: in the config and that the program is installed", quote(strings.Join(c.argv, " "), maxQuote), dirName(dir), err)
	}
}

// run runs cmd to its end, through launch when the check is sandboxed.
func (c *commandCheck) run(ctx context.Context, launch *sandbox.Launch, cmd *exec.Cmd) error {
	if launch == nil {
		return cmd.Run()
	}
	if err := launch.Start(ctx, cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

func dirName(dir string) string {
	if dir == "" {
		return "the current directory"
	}
	return dir
}
