package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// sendingMode is select over its own agents, which send their work
// (agent.Request.Sent) as the run's agents do.
type sendingMode struct {
	agents func(runDir string) []executor.Task
}

func (sendingMode) Traits() Traits { return Traits{Name: config.ModeSelect, ErrorLines: true} }

func (m sendingMode) Run(ctx context.Context, x *Execution) error {
	opts := x.Options
	opts.Tasks = m.agents(x.Run.Dir)
	results, err := executor.Run(ctx, opts)
	x.SetResults(results)
	return err
}

// TestRecordFilesWaitForTheRequests: what the run writes only for its
// record — workflow-optr.yaml, the blackboard — is written once the
// agents' work is out, not while they prepare it: each agent finds
// neither in the run's directory until it sent its work, and the run
// records both.
func TestRecordFilesWaitForTheRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := config.Parse("optr.yml", []byte("sandbox: { mode: off }\nagents:\n  a: { provider: command, run: [sh] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	s := Spec{Config: cfg, Workflow: "w", RunID: "r1", Intent: "look", Datalake: lake,
		LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
	early := []string{datalake.FileWorkflow, filepath.Join(datalake.DirCoord, escalation.FileBlackboard)}
	sender := func(name, runDir string) executor.Task {
		return executor.Task{Agent: agenttest.New(name, func(_ context.Context, req agent.Request) (agent.Response, error) {
			for _, f := range early {
				if _, err := os.Stat(filepath.Join(runDir, f)); !errors.Is(err, os.ErrNotExist) {
					return agent.Response{}, agent.Errorf(agent.Fatal, "early", "%s was written before the agents sent their work (stat: %v)", f, err)
				}
			}
			req.Sent()
			return agent.Response{Output: "ok"}, nil
		})}
	}
	mode := sendingMode{agents: func(runDir string) []executor.Task {
		return []executor.Task{sender("a", runDir), sender("b", runDir)}
	}}
	deps := Deps{Environ: []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}, Getenv: func(string) string { return "" }}
	rep, err := (&Driver{Deps: deps, Mode: mode}).Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != status.Succeeded {
			t.Errorf("%s: %s: %s", r.Agent, r.Status, r.Error)
		}
	}
	run, err := datalake.Open(s.Datalake).OpenRun(s.Workflow, s.RunID)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := run.Committable()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range early {
		if !slices.Contains(files, run.Path(f)) {
			t.Errorf("the run's files %v lack %s", files, f)
		}
	}
}
