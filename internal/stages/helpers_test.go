package stages

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
)

// repoRoot is where the demo's paths (testdata/demo/...) are relative to.
const repoRoot = "../.."

var discard = slog.New(slog.DiscardHandler)

// newRun creates a run directory in a fresh datalake.
func newRun(t *testing.T, lake *datalake.Lake, id string) *datalake.Run {
	t.Helper()
	if lake == nil {
		lake = datalake.Open(t.TempDir())
	}
	run, err := lake.NewRun("wf", id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// shAgent is a command agent running script with sh -c.
func shAgent(t *testing.T, name, script string, timeout time.Duration) executor.Task {
	t.Helper()
	cfg := config.Agent{Provider: config.ProviderCommand, Run: []string{"sh", "-c", script}, Timeout: config.Duration(timeout)}
	a, err := command.New(name, cfg, command.Options{Logger: discard, KillGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return executor.Task{Agent: a, Provider: config.ProviderCommand}
}

// scripts is an agent factory over fixed sh scripts.
func scripts(t *testing.T, byStage map[string]string) func(string) (executor.Task, error) {
	t.Helper()
	tasks := map[string]executor.Task{}
	for name, script := range byStage {
		tasks[name] = shAgent(t, name, script, time.Minute)
	}
	return func(stage string) (executor.Task, error) { return tasks[stage], nil }
}

// demo loads testdata/demo/stages.yml: the decide pipeline's Config, its
// agent factory (the real demo scripts as command agents) and the
// config's constraints as real checks.
func demo(t *testing.T) (Config, func(string) (executor.Task, error), []check.Constraint) {
	t.Helper()
	cfg, err := config.Load(filepath.Join(repoRoot, "testdata/demo/stages.yml"))
	if err != nil {
		t.Fatal(err)
	}
	factory := func(stage string) (executor.Task, error) {
		ac := cfg.Agents[stage]
		a, err := command.New(stage, ac, command.Options{Logger: discard})
		if err != nil {
			return executor.Task{}, err
		}
		return executor.Task{Agent: a, Provider: ac.Provider, Timeout: ac.Timeout.D()}, nil
	}
	var cons []check.Constraint
	for _, name := range cfg.ConstraintNames {
		c := cfg.Constraints[name]
		chk, err := check.New(name, c, check.Options{Dir: repoRoot, Env: os.Environ()})
		if err != nil {
			t.Fatal(err)
		}
		cons = append(cons, check.Constraint{Name: name, Hard: c.Hard, Checker: chk})
	}
	return ConfigFrom("decide", cfg.Pipelines["decide"]), factory, cons
}

// events collects the events of a run.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// started lists the stages in the order their attempts started.
func (e *events) started() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		if ev.State == StateWorking {
			out = append(out, ev.Stage)
		}
	}
	return out
}

// sleeps records the waits a run asked for and returns at once.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// input is a base Input for a run in dir.
func input(run *datalake.Run, c Config, task func(string) (executor.Task, error), ev *events, sl *sleeps) Input {
	in := Input{
		Config:         c,
		Request:        agent.Request{Intent: "Should we split the release?", Workflow: run.Workflow, RunID: run.ID, Dir: repoRoot, OutputDir: filepath.Join(run.Dir, "agent-files")},
		Run:            run,
		Task:           task,
		OnNoAdmissible: config.NoAdmissibleFail,
		Logger:         discard,
	}
	if ev != nil {
		in.OnEvent = ev.add
	}
	if sl != nil {
		in.Sleep = sl.sleep
	}
	return in
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
