package delegate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
)

// TestDemoResearchPipeline runs the offline demo's research pipeline from
// testdata/demo/optr.yml as the driver will: the config's agents and hard
// constraints, the repository root as the workspace. Three of four topics
// are valid (sloppy's counts are false): completed with a warning.
func TestDemoResearchPipeline(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(root, "testdata/demo/optr.yml"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	constraints, err := check.Resolve(cfg, nil, check.Options{Dir: root, Env: env, Workflow: "local", RunID: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(t.TempDir(), ".optr")
	in := Input{
		Config: cfg, Pipeline: cfg.Pipelines["research"], Intent: "How do ledgers stay honest?",
		Workflow: "local", RunID: "demo", Datalake: lake, Dir: root,
		Task: func(name string) (executor.Task, error) {
			ac := cfg.Agents[name]
			a, err := command.New(name, ac, command.Options{Environ: env})
			return executor.Task{Agent: a, Provider: ac.Provider, Timeout: ac.Timeout.D()}, err
		},
		Exec: executor.Options{
			Request:     executorRequest(root),
			Constraints: constraints, MaxParallel: cfg.Executor.MaxParallel, Now: time.Now,
		},
	}
	o, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Warned() || o.Valid != 3 || len(o.Topics) != 4 {
		t.Fatalf("demo: status %s, %d of %d valid: %s\n%s", o.Status, o.Valid, len(o.Topics), o.Message, o.SummaryText)
	}
	if f := o.Topics[2].Failure; f == nil || f.Type != ReasonCounts || o.Topics[2].Agent != "sloppy.003" {
		t.Errorf("topic 3: %+v by %s, want sloppy's false counts", f, o.Topics[2].Agent)
	}
	if o.Spec != "specs/001_local" {
		t.Errorf("spec %s", o.Spec)
	}
}
