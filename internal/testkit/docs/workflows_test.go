package docs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rhysd/actionlint"
)

// TestRepositoryWorkflowsPassActionlint lints .github/workflows/*.yml with
// the repository as the project, as .ci/run's actionlint does: a step
// `uses: ./` is checked against action.yml's inputs, and
// .github/actionlint.yaml applies.
func TestRepositoryWorkflowsPassActionlint(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	project, err := actionlint.NewProject(abs)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(abs, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows found under %s (%v)", abs, err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(abs, f)
		// The path is relative to the project, as actionlint.yaml's paths are.
		for _, p := range lint(t, filepath.ToSlash(rel), readRoot(t, rel), 0, project, map[int]int{}) {
			t.Error(p)
		}
		guarded(t, rel, readRoot(t, rel), "")
	}
}

// guard is what the if: of a job that runs optr on issue events must test:
// the trigger label and the /optr comment prefix, so that other labels and
// ordinary comments never start the container. A job runs optr when a step
// uses the action (either mode) or the job calls one of optr's reusable
// workflows.
var guard = []string{
	"github.event.label.name == 'optr'",
	"startsWith(github.event.comment.body, '/optr')",
}

// runsOptr reports whether a step's uses: is the optr action, either mode.
func runsOptr(uses string) bool {
	return uses == "./" || uses == "./host" || strings.HasPrefix(uses, "optr-dev/optr@") || strings.HasPrefix(uses, "optr-dev/optr/host@")
}

// guarded checks a workflow text (completed by header when it is a jobs:
// fragment): every input it gives optr (with: of an optr step, INPUT_* in
// any step's env:) is one action.yml declares, every actions/checkout step
// keeps no credential (persist-credentials: false: agents and command
// checks can read the workspace's .git/config, architecture §4.14), and every job
// that runs optr on issue events has an if: holding each part of guard.
func guarded(t *testing.T, where, text, header string) {
	t.Helper()
	var w struct {
		On   any `yaml:"on"` // an event, a list of them or a mapping
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Uses  string `yaml:"uses"` // a reusable workflow`
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]any    `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(text+header), &w); err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	inputs := readAction(t).Inputs
	for name, job := range w.Jobs {
		for i, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") && fmt.Sprint(s.With["persist-credentials"]) != "false" {
				t.Errorf("%s: job %s step %d checks out with the job's token left in .git/config, where every agent and check can read it: add `with: persist-credentials: false`", where, name, i+1)
			}
			var given []string
			if runsOptr(s.Uses) {
				given = append(given, sortedKeys(s.With)...)
			}
			for k := range s.Env {
				if in, ok := strings.CutPrefix(k, "INPUT_"); ok {
					given = append(given, strings.ToLower(strings.ReplaceAll(in, "_", "-")))
				}
			}
			for _, in := range given {
				if _, ok := inputs[in]; !ok {
					t.Errorf("%s: job %s step %d gives optr the input %s, which action.yml does not declare", where, name, i+1, in)
				}
			}
		}
	}
	on := events(w.On)
	comments, issues := on["issue_comment"], on["issues"]
	if !comments && !issues {
		return
	}
	for name, job := range w.Jobs {
		optr := strings.HasPrefix(job.Uses, "optr-dev/optr/.github/workflows/")
		for _, s := range job.Steps {
			optr = optr || runsOptr(s.Uses)
		}
		if !optr {
			continue
		}
		if pr, ok := strings.CutPrefix(strings.TrimSpace(job.If), "github.event_name == 'pull_request'"); ok && !strings.Contains(pr, "||") {
			// A job for pull_request events alone: optr records the
			// outcome of its own pull requests, found by their branch.
			if !strings.Contains(pr, "startsWith(github.event.pull_request.head.ref, 'optr/')") {
				t.Errorf("%s: job %s runs optr on every pull request that closes: its if: lacks startsWith(github.event.pull_request.head.ref, 'optr/')", where, name)
			}
			continue
		}
		for _, g := range guard {
			if issues && strings.Contains(g, "label") || comments && strings.Contains(g, "comment") {
				if !strings.Contains(job.If, g) {
					t.Errorf("%s: job %s runs optr on issue events, but its if: lacks %s, so it starts the container for events optr skips", where, name, g)
				}
			}
		}
	}
}

// events are the names of the events a workflow's on: lists, in any of its
// three forms: one event, a list of events, or a mapping by event.
func events(on any) map[string]bool {
	out := map[string]bool{}
	switch on := on.(type) {
	case string:
		out[on] = true
	case []any:
		for _, e := range on {
			out[fmt.Sprint(e)] = true
		}
	case map[string]any:
		for e := range on {
			out[e] = true
		}
	}
	return out
}

// TestMatrixWorkflowHasAHostPath: the reusable matrix workflow runs optr
// in its container (Linux runners only) or, with input host, through the
// host action, which runs on macOS and Windows too (issue 22 item 16: its
// runs-on input worked only on Linux). In every job each step that runs
// optr has a twin in the other mode with the same inputs and environment,
// exactly one of the two runs, and the job's outputs take either's.
func TestMatrixWorkflowHasAHostPath(t *testing.T) {
	t.Parallel()
	type step struct {
		ID   string            `yaml:"id"`
		If   string            `yaml:"if"`
		Uses string            `yaml:"uses"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	}
	var w struct {
		On struct {
			WorkflowCall struct {
				Inputs map[string]struct {
					Type    string `yaml:"type"`
					Default any    `yaml:"default"`
				} `yaml:"inputs"`
			} `yaml:"workflow_call"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Outputs map[string]string `yaml:"outputs"`
			Steps   []step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	const file = ".github/workflows/optr-matrix.yml"
	if err := yaml.Unmarshal([]byte(readRoot(t, file)), &w); err != nil {
		t.Fatal(err)
	}
	if in, ok := w.On.WorkflowCall.Inputs["host"]; !ok || in.Type != "boolean" || in.Default != false {
		t.Errorf("%s has no boolean input host, default false: %+v", file, in)
	}
	const container, host = "./.optr-action", "./.optr-action/host"
	for name, job := range w.Jobs {
		var cs, hs []step
		for _, s := range job.Steps {
			switch s.Uses {
			case container:
				cs = append(cs, s)
			case host:
				hs = append(hs, s)
			}
		}
		if len(cs) != 1 || len(hs) != 1 {
			t.Errorf("job %s runs optr in %d container and %d host steps, want one of each", name, len(cs), len(hs))
			continue
		}
		c, h := cs[0], hs[0]
		if strings.ReplaceAll(c.If, " ", "") != "${{!inputs.host}}" || strings.ReplaceAll(h.If, " ", "") != "${{inputs.host}}" {
			t.Errorf("job %s: the container step runs if %q and the host step if %q; want exactly one by inputs.host", name, c.If, h.If)
		}
		if fmt.Sprint(c.With) != fmt.Sprint(h.With) || fmt.Sprint(c.Env) != fmt.Sprint(h.Env) {
			t.Errorf("job %s: the two steps differ beyond uses:\n%+v\n%+v", name, c, h)
		}
		if c.ID != "" && h.ID != c.ID+"-host" {
			t.Errorf("job %s: the host step's id is %q, want %q", name, h.ID, c.ID+"-host")
		}
		for out, v := range job.Outputs {
			if c.ID != "" && strings.Contains(v, "steps."+c.ID+".") && !strings.Contains(v, "steps."+h.ID+".") {
				t.Errorf("job %s: output %s = %s comes only from the container step", name, out, v)
			}
		}
	}
}
