package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// failClosedConfig is a config file whose hard checks cannot run here: a
// program installed nowhere (a `go test ./...` gate on an image without
// Go), scripts missing or not executable, and schemas missing or broken.
const failClosedConfig = `constraints:
  tests:
    check: command
    run: [optr-no-such-go, test, ./...]
    hard: true
  script:
    check: command
    run: [./checks/missing.sh]
    hard: true
  noexec:
    check: command
    run: [./checks/not-executable.sh]
    hard: true
  shape:
    check: json-schema
    schema: schemas/nope.json
    hard: true
  broken:
    check: json-schema
    schema: schemas/broken.json
  fine:
    check: command
    run: [./checks/no-todo.sh]
    hard: true
`

// loadConfig writes text as a config file and loads it, so that errors
// can name its lines.
func loadConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "optr.yml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestResolveRefusesChecksThatCannotRun (issue 27 item 1): a check that
// cannot run used to be unverified on every output, so a hard gate passed
// them all. Before any agent starts, Resolve refuses each such constraint
// with the config file, line and key.
func TestResolveRefusesChecksThatCannotRun(t *testing.T) {
	t.Parallel()
	cfg := loadConfig(t, failClosedConfig)
	_, err := Resolve(cfg, nil, Options{Dir: workspace, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err == nil {
		t.Fatal("Resolve accepted checks that cannot run")
	}
	type where struct {
		Line int
		Key  string
		Says string
	}
	var got []where
	for _, e := range config.Errors(err) {
		if e.File != cfg.Path {
			t.Errorf("error %q names file %q, want %q", e, e.File, cfg.Path)
		}
		says := ""
		for _, s := range []string{"not found in PATH", "does not exist", "is not executable", "compile JSON Schema"} {
			if strings.Contains(e.Msg, s) {
				says = s
			}
		}
		got = append(got, where{e.Line, e.Key, says})
	}
	want := []where{
		{4, "constraints.tests.run[0]", "not found in PATH"},
		{8, "constraints.script.run[0]", "does not exist"},
		{12, "constraints.noexec.run[0]", "is not executable"},
		{16, "constraints.shape.schema", "compile JSON Schema"},
		{20, "constraints.broken.schema", "compile JSON Schema"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
	}
}

// TestPreflightUsesTheChecksPATH: a program is found on the PATH the check
// runs with, not on optr's own.
func TestPreflightUsesTheChecksPATH(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "optr-gate"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, "constraints:\n  gate:\n    check: command\n    run: [optr-gate]\n    hard: true\n")
	cs, err := Resolve(cfg, nil, Options{Dir: t.TempDir(), Env: []string{"PATH=" + bin}})
	if err != nil {
		t.Fatalf("a program on the check's PATH was refused: %v", err)
	}
	if ev := Evaluate(t.Context(), cs, "x"); !ev.Admissible || ev.Verdicts[0].Status != status.Passed {
		t.Errorf("the check on its own PATH: %+v", ev)
	}
	if _, err := Resolve(cfg, nil, Options{Dir: t.TempDir(), Env: []string{"PATH=/nonexistent"}}); err == nil || !strings.Contains(err.Error(), "constraints.gate.run[0]") {
		t.Errorf("a program missing from the check's PATH: error %v, want one naming constraints.gate.run[0]", err)
	}
}

// TestHardCheckThatCannotRunFailsClosed: a check that passed preflight
// but cannot run when an output is checked (its program or schema removed
// since) makes a hard constraint fail with the reason, so the output is
// not admissible; a soft one is unverified.
func TestHardCheckThatCannotRunFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []struct {
		name string
		data string
		mode os.FileMode
	}{{"gate.sh", "#!/bin/sh\nexit 0\n", 0o755}, {"shape.json", `{"type": "object"}`, 0o644}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, hard := range []bool{true, false} {
		cfg := &config.Config{
			Constraints: map[string]config.Constraint{
				"gate":  {Check: "command", Run: []string{"./gate.sh"}, Hard: hard},
				"shape": {Check: "json-schema", Schema: "shape.json", Hard: hard},
			},
			ConstraintNames: []string{"gate", "shape"},
		}
		work := t.TempDir()
		for _, n := range []string{"gate.sh", "shape.json"} {
			data, _ := os.ReadFile(filepath.Join(dir, n))
			info, _ := os.Stat(filepath.Join(dir, n))
			if err := os.WriteFile(filepath.Join(work, n), data, info.Mode()); err != nil {
				t.Fatal(err)
			}
		}
		cs, err := Resolve(cfg, nil, Options{Dir: work})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"gate.sh", "shape.json"} {
			if err := os.Remove(filepath.Join(work, n)); err != nil {
				t.Fatal(err)
			}
		}
		ev := Evaluate(t.Context(), cs, "{}")
		for _, v := range ev.Verdicts {
			switch {
			case hard && (v.Status != status.Failed || !strings.HasPrefix(v.Reason, "failed closed, the check could not run: ")):
				t.Errorf("hard %s: %+v; want failed closed with the reason", v.Constraint, v)
			case !hard && v.Status != status.Unverified:
				t.Errorf("soft %s: %+v; want unverified", v.Constraint, v)
			}
		}
		if ev.Admissible == hard {
			t.Errorf("hard=%v: admissible %v", hard, ev.Admissible)
		}
	}
}
