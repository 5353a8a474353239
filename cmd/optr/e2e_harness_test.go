package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

const repo = githubtest.DefaultRepo

// ledgerBranch is where the Action commits the datalake by default: a
// branch of its own, created as an orphan (architecture §4.2).
const ledgerBranch = "optr-ledger"

// runner is one job of the Actions runner (actiontest.Runner) that starts
// the built optr as the runner starts a Docker action.
type runner struct {
	*actiontest.Runner
	t  *testing.T
	gh *githubtest.Server
}

func newRunner(t *testing.T, gh *githubtest.Server, runID string) *runner {
	t.Helper()
	return &runner{Runner: actiontest.New(t, gh, runID), t: t, gh: gh}
}

// result is what one `optr action` left behind.
type result struct {
	code    int
	stdout  string
	stderr  string
	outputs map[string]string
	summary string
}

// run starts `optr action` in the workspace with the step's environment
// alone, and waits for it.
func (r *runner) run() result {
	r.t.Helper()
	cmd := exec.Command(optrBin, "action")
	cmd.Dir = r.Workspace
	cmd.Env = r.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		r.t.Fatalf("run optr action: %v", err)
	}
	res.outputs = r.Outputs()
	res.summary = r.Summary()
	return res
}

// demoConfig is a small config of command agents in the workspace.
const demoConfig = `agents:
  good:
    provider: command
    run: [sh, agents/good.sh]
  sloppy:
    provider: command
    run: [sh, agents/sloppy.sh]
constraints:
  no-todo:
    check: not-regex
    pattern: 'TODO'
selection:
  on-no-admissible: %s
`

const goodAgent = "cat >/dev/null\nprintf '# Answer\\n\\nAll good.\\n'\n"
const sloppyAgent = "cat >/dev/null\nprintf '# Draft\\n\\nTODO finish\\n'\n"

func (r *runner) demo(onNoAdmissible string) {
	r.File(".github/optr.yml", strings.Replace(demoConfig, "%s", onNoAdmissible, 1))
	r.File("agents/good.sh", goodAgent)
	r.File("agents/sloppy.sh", sloppyAgent)
}

// writer grants login write permission on the repository.
func writer(gh *githubtest.Server, login string) { gh.SetPermission(repo, login, "write") }

// ledgerLines returns the committed ledger's lines on main.
func ledgerLines(t *testing.T, gh *githubtest.Server) []map[string]any {
	t.Helper()
	data, ok := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl")
	if !ok {
		t.Fatal("no ledger committed on main")
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func optrComments(gh *githubtest.Server, issue int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range gh.Comments(repo, issue) {
		if strings.Contains(c.Body, "<!-- optr:") {
			out = append(out, c)
		}
	}
	return out
}
