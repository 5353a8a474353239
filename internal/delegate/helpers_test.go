package delegate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
)

// harness is a workspace with a datalake and configured agents: command
// agents run real scripts, LLM agents talk to a fake server.
type harness struct {
	t      *testing.T
	dir    string // the workspace
	lake   string // the datalake root
	cfg    *config.Config
	getenv func(string) string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	return &harness{t: t, dir: dir, lake: filepath.Join(dir, ".optr"),
		cfg: &config.Config{Agents: map[string]config.Agent{}, Selection: config.Selection{
			Weights: config.Weights{Invariants: 40, TTV: 30, Exec: 20, Preference: 10}, OnNoAdmissible: config.NoAdmissibleFail}}}
}

// coordinator adds a command coordinator that prints out.
func (h *harness) coordinator(name, out string) {
	h.cfg.Agents[name] = config.Agent{Provider: config.ProviderCommand,
		Run: []string{"sh", "-c", `cat >/dev/null; printf '%s\n' "$PLAN"`}, Env: map[string]string{"PLAN": out}}
	h.cfg.AgentNames = append(h.cfg.AgentNames, name)
}

// specialist adds a command specialist running testdata/specialist.sh.
func (h *harness) specialist(name, mode string, env ...string) {
	script, err := filepath.Abs("testdata/specialist.sh")
	if err != nil {
		h.t.Fatal(err)
	}
	e := map[string]string{"MODE": mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	h.cfg.Agents[name] = config.Agent{Provider: config.ProviderCommand, Run: []string{"sh", script}, Env: e}
	h.cfg.AgentNames = append(h.cfg.AgentNames, name)
}

// commandPlan is a command coordinator's output planning topics.
func commandPlan(topics ...string) string {
	var b strings.Builder
	b.WriteString("thinking about the request\n")
	b.WriteString("INVOCATION_PLAN_READY: " + strconv.Itoa(len(topics)) + "\n[")
	for i, t := range topics {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"topic":"` + t + `","focus":"the facts"}`)
	}
	b.WriteString("]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS\n")
	return b.String()
}

// pipeline is a delegate pipeline with the defaults filled in.
func pipeline(coord string, agents ...string) config.Pipeline {
	return config.Pipeline{Mode: config.ModeDelegate, Coordinator: coord, Agents: agents, MaxTopics: 4, Candidates: 1, Threshold: 0.5}
}

// input is an Input for p in h's workspace.
func (h *harness) input(p config.Pipeline) Input {
	clock := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	return Input{
		Config: h.cfg, Pipeline: p, Intent: "Research how ledgers stay honest", Workflow: "research", RunID: "r1",
		Datalake: h.lake, Dir: h.dir,
		Task: func(name string) (executor.Task, error) {
			ac := h.cfg.Agents[name]
			if ac.Provider != config.ProviderCommand {
				a, err := llm.New(name, ac, llm.Options{Getenv: h.getenv})
				return executor.Task{Agent: a, Provider: ac.Provider, Model: ac.Model, Timeout: time.Minute}, err
			}
			a, err := command.New(name, ac, command.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
			return executor.Task{Agent: a, Provider: ac.Provider, Timeout: time.Minute}, err
		},
		Exec:   executor.Options{MaxParallel: 8, Now: func() time.Time { return clock }},
		Choose: choose,
	}
}

// choose is Input.Choose as the driver makes it (pipeline's
// Execution.Choose), without a run's spend to settle.
func choose(_ context.Context, results []*executor.Result, rules config.Selection) selection.Result {
	cands := make([]selection.Candidate, len(results))
	for i, r := range results {
		cands[i] = r.Candidate()
	}
	return selection.Select(cands, rules)
}

// hashTree maps every file under dir to its SHA-256.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		sum := sha256.Sum256(data)
		out[p] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// executorRequest is the base request of a run in workspace dir.
func executorRequest(dir string) agent.Request {
	return agent.Request{Workflow: "local", RunID: "demo", Dir: dir}
}

// relTo returns paths relative to root, slash-separated and sorted.
func relTo(root string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}
