package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/status"
)

// demoConfig has two command agents: good passes the hard constraint,
// sloppy breaks it.
const demoConfig = `agents:
  good: { provider: command, run: [sh, -c, "cat >/dev/null; mkdir -p $OPTR_OUTPUT_DIR/good; echo notes > $OPTR_OUTPUT_DIR/good/notes.md; printf '# Answer\n\nAll good.\n'"] }
  sloppy: { provider: command, run: [sh, -c, "cat >/dev/null; printf '# Draft\n\nTODO finish\n'"] }
  broken: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'no answer' >&2; exit 3"] }
constraints:
  no-todo: { check: not-regex, pattern: TODO }
  short: { check: max-length, value: 400, hard: false }
selection: { on-no-admissible: fail }
`

func parseConfig(t testing.TB, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("optr.yml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func testDeps() pipeline.Deps {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	return pipeline.Deps{Environ: []string{"PATH=" + os.Getenv("PATH")}, Now: func() time.Time { return now }}
}

// newPlan plans a run of cfg in a fresh workspace and returns the plan and
// the workspace.
func newPlan(t testing.TB, cfg *config.Config) (*Plan, string) {
	t.Helper()
	ws := t.TempDir()
	spec := pipeline.Spec{Config: cfg, Workflow: "docs", RunID: "r1", Intent: "write the docs", Constraints: []string{"short"}, Dir: ws}
	plan, _, err := MakePlan(t.Context(), spec, testDeps(), 7, "Docs")
	if err != nil {
		t.Fatal(err)
	}
	return plan, ws
}

// runTasks runs every task of plan into out, as the matrix jobs would.
func runTasks(t testing.TB, plan *Plan, ws, out string) {
	t.Helper()
	for _, task := range plan.Tasks {
		if _, err := RunTask(t.Context(), plan, task.ID, testDeps(), ws, out); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func makePlan(t *testing.T, cfg *config.Config, ws, pipelineName string) (*Plan, error) {
	t.Helper()
	plan, _, err := MakePlan(t.Context(), pipeline.Spec{Config: cfg, Workflow: "docs", RunID: "r1", Intent: "x", Pipeline: pipelineName, Dir: ws}, testDeps(), 0, "")
	return plan, err
}

// editResult rewrites the result.json of task id below out with edit.
func editResult(t *testing.T, out, id string, edit func(*TaskResult)) {
	t.Helper()
	path := filepath.Join(out, TaskDirName(id), ResultFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr TaskResult
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	edit(&tr)
	if data, err = json.Marshal(tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// forgePassed rewrites tr's verdict of constraint to passed, its
// evaluation summed up again to match, as a task job whose agent or
// command checks rewrote its result.json would.
func forgePassed(tr *TaskResult, constraint string) {
	for i, v := range tr.Checks.Verdicts {
		if v.Constraint == constraint {
			tr.Checks.Verdicts[i].Status, tr.Checks.Verdicts[i].Reason = status.Passed, ""
		}
	}
	tr.Checks = check.Summarize(tr.Checks.Verdicts)
}
