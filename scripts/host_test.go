package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
)

// actionFile is the part of an action's metadata both modes share.
type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T, path string) actionFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return a
}

// TestHostActionMatchesContainerAction: host/action.yml takes the same
// inputs (with the same defaults) and gives the same outputs as action.yml,
// hands every input to optr the way the runner hands them to the container,
// and takes every output from the step that runs optr. When action.yml gains
// an input or output, this test names what host/action.yml lacks.
func TestHostActionMatchesContainerAction(t *testing.T) {
	t.Parallel()
	container := readAction(t, filepath.Join("..", "action.yml"))
	host := readAction(t, filepath.Join("..", "host", "action.yml"))

	if container.Runs.Using != "docker" || host.Runs.Using != "composite" {
		t.Fatalf("runs.using: action.yml %q, host/action.yml %q; want docker and composite", container.Runs.Using, host.Runs.Using)
	}
	wantDefaults, gotDefaults := map[string]string{}, map[string]string{}
	for name, in := range container.Inputs {
		wantDefaults[name] = in.Default
	}
	for name, in := range host.Inputs {
		gotDefaults[name] = in.Default
	}
	if diff := cmp.Diff(wantDefaults, gotDefaults); diff != "" {
		t.Errorf("inputs and defaults, action.yml (-) vs host/action.yml (+):\n%s", diff)
	}

	if len(host.Runs.Steps) != 1 {
		t.Fatalf("host/action.yml has %d steps, want 1 (install.sh installs and runs optr)", len(host.Runs.Steps))
	}
	step := host.Runs.Steps[0]
	if step.Shell != "bash" || !strings.Contains(step.Run, "$GITHUB_ACTION_PATH/install.sh") {
		t.Errorf("host step runs %q in %q, want $GITHUB_ACTION_PATH/install.sh in bash", step.Run, step.Shell)
	}
	wantEnv := map[string]string{"OPTR_VERSION": ""}
	for name := range container.Inputs {
		// bash drops variables whose names hold a hyphen, so the underscore
		// form, which optr also reads, is the one that reaches optr.
		wantEnv["INPUT_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))] = "${{ inputs." + name + " }}"
	}
	if diff := cmp.Diff(wantEnv, step.Env); diff != "" {
		t.Errorf("host step env (-want +got):\n%s", diff)
	}

	wantOut, gotOut := map[string]string{}, map[string]string{}
	for name := range container.Outputs {
		wantOut[name] = "${{ steps." + step.ID + ".outputs." + name + " }}"
	}
	for name, out := range host.Outputs {
		gotOut[name] = out.Value
	}
	if diff := cmp.Diff(wantOut, gotOut); diff != "" {
		t.Errorf("outputs, action.yml (-) vs host/action.yml (+):\n%s", diff)
	}
}
