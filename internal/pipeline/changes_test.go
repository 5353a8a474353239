package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/worktree"
)

// changesConfig has three command agents that change greet.txt
// differently, and a command check that only beta's change passes; gamma
// also touches a protected path. extra is appended to the YAML.
func changesConfig(t *testing.T, extra string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("changes.yml", []byte(`agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt; echo alpha done"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo world > world.txt; echo beta done"] }
  gamma: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'on: pull_request' > .github/workflows/ci.yml; echo gamma done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: apply }
`+extra))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// applyRun runs the config text yml on workspace ws with changes
// delivered by ApplyChange, and returns the report of a run that ended.
func applyRun(t *testing.T, ws, yml string) *Outcome {
	t.Helper()
	cfg, err := config.Parse("changes.yml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var changesBase = map[string]string{"greet.txt": "hello\n", ".github/workflows/ci.yml": "on: push\n"}

func changesSpec(t *testing.T, cfg *config.Config, ws string) (Spec, Deps) {
	t.Helper()
	lake := filepath.Join(t.TempDir(), "lake")
	s := Spec{Config: cfg, Workflow: "w", RunID: "r1", Intent: "greet the world", Dir: ws,
		Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl")}
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	deps := Deps{
		Environ:      append([]string{"PATH=" + os.Getenv("PATH")}, gittest.Env...),
		Now:          func() time.Time { return now },
		WorktreeRoot: filepath.Join(t.TempDir(), "wt"),
	}
	return s, deps
}

// Three command agents change the same file differently, each in its own
// worktree; the command check runs in each worktree; only beta passes it
// and touches no protected path, and only its change reaches the working
// tree (changes.mode apply). Every result records its change and the
// ledger its patch_sha256; the worktrees are gone afterwards.
func TestChangesOnlyTheSelectedChangeIsApplied(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	spec, deps := changesSpec(t, changesConfig(t, ""), ws)
	d := &Driver{Deps: deps, Deliverer: ApplyChange{}}
	rep, err := d.Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "beta" || !rep.Delivery.Applied {
		t.Fatalf("run %s, π* = %q, delivery %+v (%s); want completed, beta, applied", rep.Status, rep.Selected, rep.Delivery, rep.Message)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain; cat greet.txt"); got != "M  greet.txt\nA  world.txt\nhello, world" {
		t.Errorf("the workspace after apply:\n%s", got)
	}
	reasons := map[string]string{}
	for _, r := range rep.Results {
		if r.Change == nil {
			t.Fatalf("%s: no change recorded", r.Agent)
		}
		patch, err := os.ReadFile(rep.Path(PatchFile(r.Agent)))
		if err != nil || worktree.SHA256Hex(patch) != r.Change.PatchSHA256 {
			t.Errorf("%s: patch file %v, sha %s vs %s", r.Agent, err, worktree.SHA256Hex(patch), r.Change.PatchSHA256)
		}
		for _, v := range r.Checks.Verdicts {
			if v.Status == status.Failed {
				reasons[r.Agent] += v.Constraint + ": " + v.Reason + ";"
			}
		}
	}
	if len(reasons) != 2 || !strings.HasPrefix(reasons["alpha"], "greets-world: ") ||
		reasons["gamma"] != `changes: protected by ".github/workflows/**" (changes.protect): the change touches .github/workflows/ci.yml;` {
		t.Errorf("failed checks: %q", reasons)
	}
	beta := rep.result("beta").Change
	if len(beta.Files) != 2 || beta.Added != 2 || beta.Removed != 1 {
		t.Errorf("beta's change: %+v", beta)
	}
	// The agent-outputs JSON carries the change; the ledger its sha256.
	var onDisk struct {
		Change *worktree.Change `json:"change"`
	}
	data, err := os.ReadFile(rep.Path("agent-outputs/beta.json"))
	if err != nil || json.Unmarshal(data, &onDisk) != nil || onDisk.Change == nil || onDisk.Change.PatchSHA256 != beta.PatchSHA256 {
		t.Errorf("agent-outputs/beta.json: %v %s", err, data)
	}
	run := rep.Entries[len(rep.Entries)-1]
	for _, res := range run.Fields["results"].([]any) {
		m := res.(map[string]any)
		ch := rep.result(m["agent"].(string)).Change
		got := []any{m["patch_sha256"], m["files_changed"], m["lines_added"], m["lines_removed"]}
		want := []any{ch.PatchSHA256, int64(len(ch.Files)), int64(ch.Added), int64(ch.Removed)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ledger result %v: patch_sha256, files_changed, lines_added, lines_removed (-want +got):\n%s", m["agent"], diff)
		}
	}
	if _, ok := run.Fields["pull_request"]; ok {
		t.Errorf("an applied change recorded a pull request: %v", run.Fields["pull_request"])
	}
	if got := gittest.Sh(t, ws, "git worktree list --porcelain | grep -c ^worktree"); got != "1" {
		t.Errorf("git still lists %s worktrees", got)
	}
	if left, _ := os.ReadDir(deps.WorktreeRoot); len(left) != 0 {
		t.Errorf("left under the worktree root: %v", left)
	}
}

// A change that no longer applies to the working tree because it moved
// during the run (here: the agent itself edits the workspace, as a person
// would) is reported and applied to nothing: the run fails with git's
// reason, is recorded, and the workspace keeps its own edit. The sandbox
// is off: a confined agent cannot write the workspace (see
// internal/cli's adversarial tests), a person can.
func TestChangesBaseMovedIsReported(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	cfg, err := config.Parse("moved.yml", []byte(`agents:
  beta:
    provider: command
    run: [sh, -c, 'cat >/dev/null; echo "hello, world" > greet.txt; echo moved > "$WS/greet.txt"; echo done']
changes: { mode: apply }
sandbox: { mode: off }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	deps.Environ = append(deps.Environ, "WS="+ws)
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Failed || rep.Selected != "beta" || !strings.Contains(rep.Message, "does not apply") {
		t.Fatalf("run %s, π* %q: %s; want failed with beta selected and the reason", rep.Status, rep.Selected, rep.Message)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain; cat greet.txt"); got != "M greet.txt\nmoved" {
		t.Errorf("the workspace:\n%s", got)
	}
	if last := rep.Entries[len(rep.Entries)-1]; last.Kind != "run" || last.Fields["status"] != "failed" {
		t.Errorf("last ledger entry %s %v", last.Kind, last.Fields["status"])
	}
}

// A run whose only change is refused by the changes policy fails under
// least-bad instead of delivering it; an LLM-free run with changes off
// records no change at all.
func TestChangesLeastBadNeverDeliversARefusedChange(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	rep := applyRun(t, ws, `agents:
  gamma: { provider: command, run: [sh, -c, "cat >/dev/null; echo x > .github/workflows/ci.yml; echo done"] }
selection: { on-no-admissible: least-bad }
changes: { mode: apply }
`)
	if rep.Status != status.Failed || rep.Delivery.Applied || !strings.Contains(rep.Message, "protected by") {
		t.Fatalf("run %s, delivery %+v: %s", rep.Status, rep.Delivery, rep.Message)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain"); got != "" {
		t.Errorf("the workspace changed:\n%s", got)
	}
}

// A delivery error is the Deliverer's to report; a run whose workspace is
// not a repository is bad input before anything is written.
func TestChangesNeedARepository(t *testing.T) {
	t.Parallel()
	spec, deps := changesSpec(t, changesConfig(t, ""), t.TempDir())
	_, err := (&Driver{Deps: deps}).Run(t.Context(), spec)
	if !IsInputError(err) || !strings.Contains(err.Error(), "not inside a git work tree") {
		t.Fatalf("Run = %v, want an input error about the repository", err)
	}
	if _, err := os.Stat(spec.Datalake); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the datalake was created: %v", err)
	}
}

// shellAgent is an agent that runs a shell script in the request's
// directory, the script of each launch (1, 2, …) its own.
func shellAgent(name string, launch func(n int) string) *agenttest.Agent {
	n := 0
	return agenttest.New(name, func(ctx context.Context, req agent.Request) (agent.Response, error) {
		n++
		cmd := exec.CommandContext(ctx, "sh", "-ec", launch(n))
		cmd.Dir = req.Dir
		out, err := cmd.CombinedOutput()
		return agent.Response{Output: string(out)}, err
	})
}

// startCodeChanges starts the worktrees of run r1 on a new repository of
// files, removed when the test ends.
func startCodeChanges(t *testing.T, files map[string]string) *codeChanges {
	t.Helper()
	ws := gittest.Repo(t, files)
	run, err := worktree.Start(t.Context(), worktree.Options{Workspace: ws, Root: filepath.Join(t.TempDir(), "wt"), RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close(context.Background()) })
	return &codeChanges{run: run, trees: map[string]*placed{}}
}

// Every launch after the first (a retry, a restart, a spare's next task)
// starts from the base again, and the change captured is the last
// launch's alone.
func TestChangesRelaunchStartsFromTheBase(t *testing.T) {
	t.Parallel()
	c := startCodeChanges(t, map[string]string{"a.txt": "a\n"})
	sa := shellAgent("agent", func(n int) string {
		if n == 1 {
			return "echo half > half.txt; echo first >> a.txt; exit 1"
		}
		return "test ! -e half.txt; test \"$(cat a.txt)\" = a; echo second > b.txt"
	})
	tasks := []executor.Task{{Agent: sa, Provider: config.ProviderCommand}}
	if err := c.place(tasks, nil, nil); err != nil {
		t.Fatal(err)
	}
	if tasks[0].Dir == "" || tasks[0].Dir == c.run.Workspace() {
		t.Fatalf("the task's directory is %q", tasks[0].Dir)
	}
	if _, err := tasks[0].Agent.Run(t.Context(), agent.Request{Dir: tasks[0].Dir}); err == nil {
		t.Fatal("the first launch succeeded")
	}
	first, _ := c.treeFor("agent").made().Captured()
	if len(first.Files) != 2 {
		t.Errorf("the first launch's change: %+v", first.Files)
	}
	if resp, err := tasks[0].Agent.Run(t.Context(), agent.Request{Dir: tasks[0].Dir}); err != nil {
		t.Fatalf("the second launch did not start from the base: %v %s", err, resp.Output)
	}
	second, _ := c.treeFor("agent-2").made().Captured()
	if len(second.Files) != 1 || second.Files[0].Path != "b.txt" {
		t.Errorf("the second launch's change: %+v", second.Files)
	}
}

// An agent's worktree is made when it is first launched, not when the run
// is planned: a spare that never runs costs none, and a tree that cannot
// be made fails that agent's launches with the reason (every launch the
// same one), not the run.
func TestChangesTreesAreMadeAtFirstLaunch(t *testing.T) {
	t.Parallel()
	c := startCodeChanges(t, map[string]string{"a.txt": "a\n"})
	edit := func(n int) string { return "echo b > b.txt" }
	tasks := []executor.Task{
		{Agent: shellAgent("works", edit), Provider: config.ProviderCommand},
		{Agent: shellAgent("blocked", edit), Provider: config.ProviderCommand},
	}
	spares := []executor.Task{{Agent: shellAgent("spare", edit), Provider: config.ProviderCommand}}
	if err := c.place(tasks, spares, nil); err != nil {
		t.Fatal(err)
	}
	for _, task := range append(tasks, spares...) {
		if _, err := os.Stat(task.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s's worktree %s was made before its launch: %v", task.Agent.Name(), task.Dir, err)
		}
	}
	// Something is in the way of blocked's tree.
	if err := os.WriteFile(tasks[1].Dir, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}

	if resp, err := tasks[0].Agent.Run(t.Context(), agent.Request{Dir: tasks[0].Dir}); err != nil {
		t.Fatalf("works: %v %s", err, resp.Output)
	}
	if got := c.treeFor("works").made(); got == nil || got.Dir() != tasks[0].Dir {
		t.Fatalf("works's tree after its launch: %v, want one at %s", got, tasks[0].Dir)
	}
	if ch, _ := c.treeFor("works").made().Captured(); len(ch.Files) != 1 || ch.Files[0].Path != "b.txt" {
		t.Errorf("works's change: %+v", ch.Files)
	}
	var reasons []string
	for launch := 1; launch <= 2; launch++ {
		_, err := tasks[1].Agent.Run(t.Context(), agent.Request{Dir: tasks[1].Dir})
		if agent.ClassOf(err) != agent.Systematic || !strings.Contains(err.Error(), "worktree for blocked") {
			t.Fatalf("blocked's launch %d = %v, want a systematic error naming its worktree", launch, err)
		}
		reasons = append(reasons, err.Error())
	}
	if reasons[0] != reasons[1] {
		t.Errorf("the second launch failed for another reason than the first:\n%s\n%s", reasons[0], reasons[1])
	}
	if c.treeFor("blocked").made() != nil || c.treeFor("spare").made() != nil {
		t.Error("a tree is recorded for an agent whose tree was not made")
	}
	if _, err := os.Stat(spares[0].Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spare, never launched, has a worktree: %v", err)
	}
}

// Only select runs its agents in worktrees: a stages or delegate pipeline
// with changes on is refused before anything is written, rather than let
// its agents change the workspace.
func TestChangesNeedSelectMode(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	spec, deps := changesSpec(t, changesConfig(t, "pipelines:\n  chain: { mode: stages, agents: [alpha, beta] }\n"), ws)
	spec.Pipeline = "chain"
	_, err := (&Driver{Deps: deps}).Run(t.Context(), spec)
	if !IsInputError(err) || !strings.Contains(err.Error(), "code changes need mode select") {
		t.Fatalf("Run = %v, want an input error naming mode select", err)
	}
	if _, err := os.Stat(spec.Datalake); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the datalake was created: %v", err)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain"); got != "" {
		t.Errorf("the workspace changed:\n%s", got)
	}
}

// A copilot agent is a coding agent when changes are on: the real Copilot
// CLI (BYOK, against the fake OpenAI API whose model asks for an edit)
// works in its own worktree, its edit is captured as its patch, the command
// check runs on that change, and only π*'s change reaches the workspace.
func TestChangesCopilotCodesInItsWorktree(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	fake := llmtest.NewOpenAI(t)
	ws := gittest.Repo(t, changesBase)
	cfg, err := config.Parse("changes.yml", []byte(`agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt"] }
  pilot: { provider: copilot, byok: openai, base-url: `+fake.URL+`, model: gpt-4.1 }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: apply }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	// The worktree's path is known only once the run made it: the model's
	// edit names the file relative to the session's working directory.
	fake.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "edit", Args: map[string]any{"path": "greet.txt", "old_str": "hello", "new_str": "hello, world"}}}},
		llmtest.Reply{Text: llmtest.Answer("greet.txt now greets the world", 10)},
	)
	env := map[string]string{"OPTR_COPILOT_CLI": cli, "HOME": home, "PATH": os.Getenv("PATH"), "TMPDIR": t.TempDir(), "OPENAI_API_KEY": fake.Key}
	deps.Getenv, deps.HTTPClient = func(k string) string { return env[k] }, fake.Client()
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "pilot" || !rep.Delivery.Applied {
		t.Fatalf("run %s, π* = %q, delivery %+v (%s); want completed, pilot, applied", rep.Status, rep.Selected, rep.Delivery, rep.Message)
	}
	pilot := rep.result("pilot")
	if pilot.Change == nil || len(pilot.Change.Files) != 1 || pilot.Change.Files[0].Path != "greet.txt" {
		t.Fatalf("pilot's change: %+v", pilot.Change)
	}
	if pilot.Output != "greet.txt now greets the world" {
		t.Errorf("pilot's output %q", pilot.Output)
	}
	patch, err := os.ReadFile(rep.Path(PatchFile("pilot")))
	if err != nil || !strings.Contains(string(patch), "+hello, world") {
		t.Errorf("pilot's patch (%v):\n%s", err, patch)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain; cat greet.txt"); got != "M  greet.txt\nhello, world" {
		t.Errorf("the workspace after apply:\n%s", got)
	}
	if left, _ := os.ReadDir(deps.WorktreeRoot); len(left) != 0 {
		t.Errorf("left under the worktree root: %v", left)
	}
}

// An LLM agent answers in text and can change no code: in a changes run
// it is refused before any agent starts, naming the agent and what to do,
// rather than after it spent its tokens on an answer the "changes"
// constraint must refuse (issue 22 item 13).
func TestChangesRefuseAnLLMAgentBeforeItSpends(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	fake.SetDefault(llmtest.Reply{Text: llmtest.Answer("greet.txt should say hello, world", 10)})
	ws := gittest.Repo(t, changesBase)
	cfg, err := config.Parse("changes.yml", []byte(`agents:
  alpha:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt"] }
  writer: { provider: openai, model: gpt-4.1, base-url: `+fake.URL+` }
changes: { mode: apply }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	deps.Getenv, deps.HTTPClient = fake.Getenv, fake.Client()
	_, err = (&Driver{Deps: deps}).Run(t.Context(), spec)
	if !IsInputError(err) {
		t.Fatalf("Run = %v, want an input error", err)
	}
	for _, want := range []string{`"writer"`, "openai", "only command and copilot agents", "--agents"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the LLM agent was asked %d time(s) before it was refused", n)
	}
	if _, err := os.Stat(spec.Datalake); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the datalake was created: %v", err)
	}
}

// A command agent's script that is not committed is missing from the
// worktree the agent works in (it starts at HEAD): the run is refused
// before any agent starts with an error that says so and what to do,
// instead of the shell's "cannot open agents/probe.sh" (issue 22 item 13).
func TestChangesUncommittedScriptIsNamed(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	if err := os.MkdirAll(filepath.Join(ws, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "agents", "probe.sh"), []byte("cat >/dev/null; echo 'hello, world' > greet.txt; echo probe done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("changes.yml", []byte(`agents:
  probe: { provider: command, run: [sh, agents/probe.sh] }
changes: { mode: apply }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	_, err = (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if !IsInputError(err) {
		t.Fatalf("Run = %v, want an input error", err)
	}
	for _, want := range []string{`agent "probe"`, "agents/probe.sh", "not committed", "starts at HEAD", "git commit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	// Committed, the same script runs and its change is delivered.
	gittest.Sh(t, ws, "git add agents/probe.sh && git commit -qm probe")
	spec.RunID = "r2"
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil || rep.Status != status.Completed || rep.Selected != "probe" {
		t.Fatalf("after the commit: %v, %+v", err, rep)
	}
}

// A change that deletes more than half the tracked files is not
// admissible by default (changes.max-deletions), with the reason in the
// score table; one that deletes fewer is selected (issue 22 item 13: a
// patch deleting every file was admissible).
func TestChangesMassDeletionIsNotAdmissible(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"})
	rep := applyRun(t, ws, `agents:
  wiper: { provider: command, run: [sh, -c, "cat >/dev/null; rm a.txt b.txt c.txt d.txt; echo wiped"] }
  tidy:  { provider: command, run: [sh, -c, "cat >/dev/null; rm a.txt; echo tidied"] }
changes: { mode: apply }
`)
	if rep.Selected != "tidy" {
		t.Errorf("π* = %q (%s), want tidy", rep.Selected, rep.Message)
	}
	if got, want := rep.refusedChange("wiper"), "deletes 4 of the 4 tracked files, more than half of them"; !strings.Contains(got, want) {
		t.Errorf("wiper's changes verdict %q, want %q", got, want)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain"); got != "D  a.txt" {
		t.Errorf("the workspace after apply:\n%s", got)
	}
}

// optr's own files in the repository — the datalake (here not at the
// default .optr, so the default protect globs miss it), a ledger kept
// apart from it, and the config file — are never admissible to change,
// even when changes.protect is set and so replaces its defaults: an
// agent's change that edits the record of runs or the rules they run
// under is never delivered, the rest still is.
func TestChangesNeverTouchOptrsOwnFiles(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, map[string]string{
		"greet.txt": "hello\n", "ops/lake/notes.md": "kept\n", "records/ledger.jsonl": "", "ops/optr.yml": "agents: {}\n",
	})
	yml := `agents:
  forger:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo forged >> ops/lake/notes.md; echo forger done"] }
  planter: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; mkdir -p ops/lake/x && echo new > ops/lake/x/y.md; echo planter done"] }
  relaxer: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'sandbox: { mode: off }' >> ops/optr.yml; echo relaxer done"] }
  rewriter: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo forged > records/ledger.jsonl; echo rewriter done"] }
  honest:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo honest done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: apply, protect: ["secrets/**"] }
`
	cfg, err := config.Parse(filepath.Join(ws, "ops", "optr.yml"), []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	spec.Datalake = filepath.Join(ws, "ops", "lake")
	spec.LedgerPath = filepath.Join(ws, "records", "ledger.jsonl")
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Selected != "honest" {
		t.Errorf("π* = %q (%s), want honest", rep.Selected, rep.Message)
	}
	for agent, want := range map[string]string{
		"forger":   "touches optr's datalake ops/lake: ops/lake/notes.md",
		"planter":  "touches optr's datalake ops/lake: ops/lake/x/y.md",
		"relaxer":  "touches optr's config file: ops/optr.yml",
		"rewriter": "touches optr's ledger: records/ledger.jsonl",
	} {
		if got := rep.refusedChange(agent); !strings.Contains(got, want) {
			t.Errorf("%s's changes verdict %q, want %q", agent, got, want)
		}
	}
	if got := gittest.Sh(t, ws, "git diff --cached --name-only"); got != "greet.txt" {
		t.Errorf("the workspace's staged change: %q, want greet.txt alone", got)
	}
}

// Where no config file is and the embedded default runs, the path the
// config would be read from is optr's own too: a change creating it would
// set the rules of the next run.
func TestChangesNeverCreateTheConfigFile(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, map[string]string{"greet.txt": "hello\n"})
	cfg, err := config.Parse("", []byte(`agents:
  creator: { provider: command, run: [sh, -c, "cat >/dev/null; mkdir -p .github; echo 'sandbox: { mode: off }' > .github/optr.yml; echo created"] }
changes: { mode: apply }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	spec.ConfigPath = filepath.Join(ws, config.DefaultPath)
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "touches optr's config file: .github/optr.yml"; rep.Selected != "" || !strings.Contains(rep.refusedChange("creator"), want) {
		t.Errorf("π* = %q, the creator's changes verdict %q, want none selected and %q", rep.Selected, rep.refusedChange("creator"), want)
	}
	if _, err := os.Stat(filepath.Join(ws, config.DefaultPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the config file was created in the workspace: %v", err)
	}
}
