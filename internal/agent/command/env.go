package command

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// environ builds the attempt's environment: the base, then the configured
// env, then the OPTR_* variables, a later value replacing an earlier one.
// Every OPTR_* variable is set, empty when there is nothing to say, so that
// none leaks in from optr's own environment; the one exception is
// OPTR_FEEDBACK, which is absent unless there is feedback (DESIGN §4.10:
// absent on a pipeline's first run), and removed from the base too.
func (a *Agent) environ(req agent.Request) []string {
	base := a.opts.Environ
	if base == nil {
		base = os.Environ()
	}
	env := slices.Clone(base)
	for _, k := range slices.Sorted(maps.Keys(a.env)) {
		env = append(env, k+"="+a.env[k])
	}
	env = append(env,
		"OPTR_WORKFLOW="+req.Workflow,
		"OPTR_RUN_ID="+req.RunID,
		"OPTR_AGENT="+a.name,
		"OPTR_STAGE="+req.Stage,
		"OPTR_CONSTRAINTS="+strings.Join(req.Constraints, ","),
		"OPTR_HINT="+req.Hint,
		"OPTR_OUTPUT_DIR="+req.OutputDir,
		"OPTR_TOPIC="+req.Topic,
		"OPTR_REPORT_PATH="+req.ReportPath,
		"OPTR_NEXT_STAGE="+req.NextStage,
		"OPTR_PREVIOUS_OUTPUT="+req.PreviousOutput,
		"OPTR_FEEDBACK="+req.Feedback,
	)
	env = dedupe(env)
	if req.Feedback == "" {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OPTR_FEEDBACK=") })
	}
	return env
}

// dedupe keeps one entry per variable: the last value, at the place of the
// first. Entries without '=' are dropped.
func dedupe(env []string) []string {
	at := make(map[string]int, len(env))
	out := env[:0:0]
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if i, seen := at[k]; seen {
			out[i] = kv
			continue
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// getenv returns the value of key in env.
func getenv(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
