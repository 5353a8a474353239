package actiontest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

// Token is the GitHub token a Runner gives the action (INPUT_GITHUB-TOKEN).
const Token = "ghs_actiontesttoken"

// SHA is the commit a Runner's job runs at (GITHUB_SHA).
const SHA = "ffac537e6cbbf934b08745a378932722df287a53"

// Runner is one job of the Actions runner: a workspace, an event payload
// file, the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the
// environment the runner gives a Docker action, against a fake GitHub.
type Runner struct {
	// Workspace is GITHUB_WORKSPACE, the job's checkout, empty at first.
	Workspace string
	// Dir holds the runner's own files (event.json, output, summary.md)
	// and is HOME; Workspace is inside it.
	Dir string
	// Env is the step's environment: GITHUB_* for repository
	// githubtest.DefaultRepo on the fake, and INPUT_* with action.yml's
	// defaults. Tests change it before they start the action.
	Env map[string]string

	tb testing.TB
}

// New returns the runner of a job of run runID against the fake gh, its
// directories removed when the test ends.
func New(tb testing.TB, gh *githubtest.Server, runID string) *Runner {
	tb.Helper()
	dir := tb.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		tb.Fatal(err)
	}
	return &Runner{Workspace: ws, Dir: dir, tb: tb, Env: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_API_URL":      gh.URL(),
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_REPOSITORY":   githubtest.DefaultRepo,
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_RUN_ID":       runID,
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_SHA":          SHA,
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
		"INPUT_GITHUB-TOKEN":  Token,
		"INPUT_CONFIG":        ".github/optr.yml",
		"INPUT_COMMAND":       "auto",
		"INPUT_TRIGGER-LABEL": "optr",
		"INPUT_DATALAKE":      ".optr",
		"INPUT_COMMIT":        "true",
		"HOME":                dir,
		"PATH":                os.Getenv("PATH"),
	}}
}

// File writes a workspace file (executable, so scripts run as agents).
func (r *Runner) File(rel, content string) {
	r.tb.Helper()
	p := filepath.Join(r.Workspace, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		r.tb.Fatal(err)
	}
}

// Event makes the job's event name, its payload the fixture of that name
// changed by edit (nil changes nothing). The fixtures come from another
// repository: the payload names the fake's default branch, main, as
// GitHub's payload names the real one.
func (r *Runner) Event(name, fixture string, edit func(map[string]any)) {
	r.tb.Helper()
	payload := EditPayload(r.tb, fixture, func(m map[string]any) {
		if repo, ok := m["repository"].(map[string]any); ok {
			repo["default_branch"] = "main"
		}
		if edit != nil {
			edit(m)
		}
	})
	if err := os.WriteFile(r.Env["GITHUB_EVENT_PATH"], payload, 0o644); err != nil {
		r.tb.Fatal(err)
	}
	r.Env["GITHUB_EVENT_NAME"] = name
}

// Getenv is the step's environment as a getenv function.
func (r *Runner) Getenv(k string) string { return r.Env[k] }

// Environ is the step's environment as KEY=value strings, sorted.
func (r *Runner) Environ() []string {
	var out []string
	for k, v := range r.Env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// Outputs are the step outputs the action wrote, read as the runner reads
// GITHUB_OUTPUT; none when it wrote no file. A file the runner would
// refuse, or an output set twice, fails the test.
func (r *Runner) Outputs() map[string]string {
	r.tb.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(r.Env["GITHUB_OUTPUT"])
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	if err != nil {
		r.tb.Fatal(err)
	}
	list, err := ParseOutputs(string(b))
	if err != nil {
		r.tb.Fatalf("the runner would fail on GITHUB_OUTPUT: %v\n%s", err, b)
	}
	for _, o := range list {
		if _, dup := out[o.Name]; dup {
			r.tb.Fatalf("GITHUB_OUTPUT: output %s set twice", o.Name)
		}
		out[o.Name] = o.Value
	}
	return out
}

// Summary is what the action wrote to GITHUB_STEP_SUMMARY, empty when it
// wrote nothing.
func (r *Runner) Summary() string {
	b, _ := os.ReadFile(r.Env["GITHUB_STEP_SUMMARY"])
	return string(b)
}
