package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// gitCmd runs the git binary with settings that keep a repository's own
// configuration from acting on optr's behalf: hooks never run (a
// post-checkout hook would run on every worktree add), the workspace is
// trusted even when its owner is another user (the Actions container), and
// nothing ever prompts.
type gitCmd struct {
	bin string
	// env is added to the process environment; it selects the git
	// directory, work tree or index when set.
	env []string
	// config are further settings (key=value) for the commands g runs,
	// given with -c like the fixed ones.
	config []string
}

// run runs git in dir with args, which start with the git command's name
// (settings and options of git itself go in g), and returns its standard
// output. The error quotes git's standard error.
func (g gitCmd) run(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	full := []string{
		"-c", "core.hooksPath=" + os.DevNull,
		"-c", "safe.directory=*",
		"-c", "core.fsmonitor=false",
		"-c", "advice.detachedHead=false",
	}
	for _, c := range g.config {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.Env = append(cmd.Env, g.env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// with returns a copy of g that adds env.
func (g gitCmd) with(env ...string) gitCmd {
	g.env = append(slices.Clip(g.env), env...)
	return g
}

// withConfig returns a copy of g that adds settings (key=value).
func (g gitCmd) withConfig(settings ...string) gitCmd {
	g.config = append(slices.Clip(g.config), settings...)
	return g
}

// splitZ splits NUL-terminated records.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
