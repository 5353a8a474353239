package docs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rhysd/actionlint"
)

// TestRepositoryWorkflowsPassActionlint lints .github/workflows/*.yml with
// the repository as the project, so a step `uses: ./` is checked against
// action.yml's inputs, as .ci/run's actionlint does.
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
		for _, p := range lint(t, f, readRoot(t, rel), 0, project, map[int]int{}) {
			t.Error(p)
		}
		guarded(t, rel, readRoot(t, rel), "")
	}
}

// guard is what the if: of a job that runs optr on issue events must test:
// the trigger label and the /optr comment prefix, so that other labels and
// ordinary comments never start the container.
var guard = []string{
	"github.event.label.name == 'optr'",
	"startsWith(github.event.comment.body, '/optr')",
}

// guarded checks that every job of a workflow text (completed by header
// when it is a jobs: fragment) that runs optr on issue events has an if:
// holding each part of guard.
func guarded(t *testing.T, where, text, header string) {
	t.Helper()
	var w struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Steps []struct {
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(text+header), &w); err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	_, comments := w.On["issue_comment"]
	_, issues := w.On["issues"]
	if !comments && !issues {
		return
	}
	for name, job := range w.Jobs {
		runsOptr := false
		for _, s := range job.Steps {
			runsOptr = runsOptr || s.Uses == "./" || strings.HasPrefix(s.Uses, "optr-dev/optr@") || strings.HasPrefix(s.Uses, "optr-dev/optr/host@")
		}
		if !runsOptr {
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
