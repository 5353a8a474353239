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
// post-checkout hook would run on every checkout), no file system monitor
// is started, the workspace is trusted even when its owner is another
// user (the Actions container), and nothing ever prompts.
type gitCmd struct {
	bin string
	// env is added to the process environment; it selects the git
	// directory, work tree or index when set.
	env []string
	// config are further settings (key=value) for the commands g runs,
	// given with -c like the fixed ones.
	config []string
	// isolated drops every setting that does not come from g itself: see
	// gitCmd.isolate.
	isolated bool
}

// neutral are the settings every command gets. Given with -c they
// override anything a configuration file says: core.hooksPath and
// core.fsmonitor name programs git would run, core.pager one it would
// start for a terminal, core.attributesFile a file of attributes outside
// the repository; the split index and the untracked cache make git write
// files beside the index that the next command trusts.
var neutral = []string{
	"core.hooksPath=" + os.DevNull,
	"core.fsmonitor=false",
	"core.pager=cat",
	"core.attributesFile=" + os.DevNull,
	"core.splitIndex=false",
	"core.untrackedCache=false",
	"safe.directory=*",
	"advice.detachedHead=false",
}

// run runs git in dir with args, which start with the git command's name
// (settings and options of git itself go in g), and returns its standard
// output. The error quotes git's standard error.
func (g gitCmd) run(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := g.command(ctx, dir, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), g.failed(args[0], err, errb.String())
	}
	return out.Bytes(), nil
}

// command is the exec.Cmd run runs, for a caller that streams its input
// or output.
func (g gitCmd) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := make([]string, 0, 2*(len(neutral)+len(g.config))+len(args))
	for _, c := range neutral {
		full = append(full, "-c", c)
	}
	for _, c := range g.config {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = dir
	env := os.Environ()
	if g.isolated {
		env = slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "GIT_EXEC_PATH=")
		})
		env = append(env,
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_ATTR_NOSYSTEM=1",
			"GIT_NO_REPLACE_OBJECTS=1", "GIT_NO_LAZY_FETCH=1", "GIT_PROTOCOL_FROM_USER=0")
	}
	cmd.Env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.Env = append(cmd.Env, g.env...)
	return cmd
}

// failed is the error of a git command named name that ended with err,
// having written stderr.
func (g gitCmd) failed(name string, err error, stderr string) error {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("git %s: %s", name, msg)
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

// isolate returns a copy of g for the repositories optr makes for the
// agents: no system or global configuration (nor the global attributes
// and ignore files they name), no GIT_* variable from optr's environment
// (GIT_DIR, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS…),
// no replace refs, no fetching of missing objects. Only the repository's
// own configuration is read, and optr writes it.
func (g gitCmd) isolate() gitCmd {
	g.isolated = true
	return g.withConfig("core.excludesFile=" + os.DevNull)
}

// splitZ splits NUL-terminated records.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
