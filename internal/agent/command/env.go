package command

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/sandbox"
	sandboxenv "github.com/optr-dev/optr/internal/sandbox/env"
)

// environ builds the attempt's environment: the base, then the configured
// env, then the OPTR_* variables, a later value replacing an earlier one.
// Every OPTR_* variable is set, empty when there is nothing to say, so that
// none leaks in from optr's own environment; the one exception is
// OPTR_FEEDBACK, which is absent unless there is feedback (architecture §4.10:
// absent on a pipeline's first run), and removed from the base too.
func (a *Agent) environ(req agent.Request) []string {
	base := a.opts.Environ
	if base == nil {
		base = os.Environ()
	}
	return withoutEmptyFeedback(sandboxenv.Merge(base, a.ownVars(req)), req)
}

// ownVars are the attempt's own variables: the configured env, then the
// OPTR_* variables.
func (a *Agent) ownVars(req agent.Request) []string {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(a.env)) {
		env = append(env, k+"="+a.env[k])
	}
	return append(env,
		"OPTR_WORKFLOW="+req.Workflow,
		"OPTR_RUN_ID="+req.RunID,
		"OPTR_AGENT="+a.name,
		"OPTR_STAGE="+req.Stage,
		"OPTR_CONSTRAINTS="+strings.Join(req.Constraints, ","),
		"OPTR_HINT="+req.Hint,
		"OPTR_OUTPUT_DIR="+outputDir(req),
		"OPTR_TOPIC="+req.Topic,
		"OPTR_REPORT_PATH="+req.ReportPath,
		"OPTR_NEXT_STAGE="+req.NextStage,
		"OPTR_PREVIOUS_OUTPUT="+req.PreviousOutput,
		"OPTR_FEEDBACK="+req.Feedback,
	)
}

// withoutEmptyFeedback removes OPTR_FEEDBACK when there is no feedback.
func withoutEmptyFeedback(env []string, req agent.Request) []string {
	if req.Feedback == "" {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OPTR_FEEDBACK=") })
	}
	return env
}

// process is the attempt as the sandbox starts it: its directories and
// its own variables.
func (a *Agent) process(req agent.Request) sandbox.Process {
	p := sandbox.Process{
		Name: a.name, Dir: req.Dir, WriteDir: req.Worktree != "",
		Env: a.ownVars(req), PassEnv: a.passEnv, Program: a.argv[0],
	}
	if req.Progress != nil {
		// Its requests through the proxy are signs of life: a CLI that
		// waits on a model's answer writes nothing meanwhile.
		p.Traffic = func() { req.Progress(agent.Progress{}) }
	}
	if dir := outputDir(req); dir != "" {
		p.Write = append(p.Write, dir)
	}
	if req.ReportPath != "" {
		p.Write = append(p.Write, filepath.Dir(req.ReportPath))
	}
	for _, f := range []string{req.PreviousOutput, req.Feedback} {
		if f != "" {
			p.Read = append(p.Read, f)
		}
	}
	return p
}

// outputDir is OPTR_OUTPUT_DIR: the request's output directory made
// absolute, so that an agent working in another directory (its own
// repository) writes there and not into its change.
func outputDir(req agent.Request) string {
	if req.OutputDir == "" {
		return ""
	}
	abs, err := filepath.Abs(req.OutputDir)
	if err != nil {
		return req.OutputDir
	}
	return abs
}

// getenv returns the value of key in env (its last), "" when unset.
func getenv(env []string, key string) string {
	v, _ := sandboxenv.Lookup(env, key)
	return v
}
