//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/testkit/agentcli"
)

// docConfig returns the one ```yaml block of docs/coding-agents.md that
// holds marker, as the doc shows it.
func docConfig(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "coding-agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(b, -1) {
		if bytes.Contains(m[1], []byte(marker)) {
			found = append(found, string(m[1]))
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/coding-agents.md has %d configs holding %q, want 1", len(found), marker)
	}
	return found[0]
}

// docWorkspace makes a repository whose .github/optr.yml is cfg, beside
// files, and returns it.
func docWorkspace(t *testing.T, dir, cfg string, files map[string]string) string {
	t.Helper()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{".github/optr.yml": cfg}
	for k, v := range files {
		all[k] = v
	}
	for p, s := range all {
		if err := os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitInit(t, ws)
	return ws
}

// greetModule is a Go module whose test wants Greeting to say "hello,
// world"; the config's go test check runs it in each agent's worktree.
var greetModule = map[string]string{
	"go.mod":        "module example.com/greet\n\ngo 1.26\n",
	"greet.go":      "package greet\n\n// Greeting greets.\nfunc Greeting() string { return \"hello\" }\n",
	"greet_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif got := Greeting(); got != \"hello, world\" {\n\t\tt.Fatalf(\"Greeting() = %q\", got)\n\t}\n}\n",
}

// TestCodingAgentsDocRuns runs docs/coding-agents.md's first config as
// pasted, through the binary: Claude Code, Codex CLI and Gemini CLI by
// their presets, from npm, each against a fake model of its provider
// whose key and endpoint are in optr's environment only (the gateway's
// upstreams), and the go test check. Only Codex CLI's change makes the
// test pass: it is selected, and its patch kept (pull-request, in the
// CLI). Every call went through the gateway: each agent's tokens are what
// its fake reported, no agent was given a real key, and optr ledger stats
// adds up to the run.
func TestCodingAgentsDocRuns(t *testing.T) {
	t.Parallel()
	cfg := docConfig(t, "gemini: { preset: gemini-cli }")
	greetings := map[string]string{"claude": "hello there", "codex": "hello, world", "gemini": "hi"}
	dir := t.TempDir()
	ws := docWorkspace(t, dir, cfg, greetModule)

	var bins []string
	coders := map[string]*llmtest.Coder{}
	var models []*llmtest.Coder
	for _, w := range presetWires {
		bins = append(bins, agentcli.Get(t, w.preset).Bin)
		src := strings.Replace(greetModule["greet.go"], `"hello"`, `"`+greetings[w.agent]+`"`, 1)
		c := llmtest.NewCoder(t, w.wire, w.agent+" changed the greeting", llmtest.Edit{Path: "greet.go", Content: src})
		coders[w.agent] = c
		models = append(models, c)
	}
	env := docEnv(dir, bins, models...)
	out, runDir := runDoc(t, ws, env, "Make Greeting say hello, world.")
	if out.Selected != "codex" {
		t.Fatalf("selected %q, want codex's change", out.Selected)
	}
	if patch, err := os.ReadFile(filepath.Join(runDir, "agent-outputs", "codex.patch")); err != nil || !strings.Contains(string(patch), `+func Greeting() string { return "hello, world" }`) {
		t.Errorf("codex's patch: %v\n%s", err, patch)
	}
	for _, w := range presetWires {
		c := coders[w.agent]
		if res := meteredAsReported(t, runDir, w.agent, c); res.Session == nil {
			t.Errorf("%s: no session read from its events", w.agent)
		}
		if tr, _ := os.ReadFile(filepath.Join(runDir, "agent-files", w.agent, "transcript.jsonl")); len(tr) == 0 || bytes.Contains(tr, []byte(c.Key)) {
			t.Errorf("%s: its transcript is missing, or holds the real key", w.agent)
		}
	}
	// optr ledger stats adds up to the run: each agent's tokens and cost.
	stats := exec.Command(optrBin, "ledger", "stats", "--json")
	stats.Dir, stats.Env = ws, env
	b, err := stats.Output()
	var st struct {
		Agents []struct {
			Agent   string   `json:"agent"`
			Tokens  *int64   `json:"tokens"`
			CostUSD *float64 `json:"cost_usd"`
		} `json:"agents"`
	}
	if err != nil || json.Unmarshal(b, &st) != nil || len(st.Agents) != len(out.Table) {
		t.Fatalf("optr ledger stats: %v\n%s", err, b)
	}
	for _, row := range out.Table {
		rep := coders[row.Agent].Reported()
		for _, a := range st.Agents {
			if a.Agent != row.Agent {
				continue
			}
			if a.Tokens == nil || *a.Tokens != row.Tokens || row.Tokens != rep.Input+rep.Output {
				t.Errorf("%s: stats %v tokens, the run %d, its model reported %d", row.Agent, a.Tokens, row.Tokens, rep.Input+rep.Output)
			}
			if (a.CostUSD == nil) != (row.CostUSD == nil) || a.CostUSD != nil && *a.CostUSD != *row.CostUSD {
				t.Errorf("%s: stats cost %v, the run's %v", row.Agent, a.CostUSD, row.CostUSD)
			}
		}
	}
}

// TestCodingAgentsDocOverrideRuns runs docs/coding-agents.md's override
// config as pasted: Claude Code by its preset with the model, timeout,
// env and command line written over it (bypassPermissions, which Claude
// Code allows the unprivileged user optr runs it as). The config asks
// for no code changes: the agent answers, its edits stay in its scratch
// directory.
func TestCodingAgentsDocOverrideRuns(t *testing.T) {
	t.Parallel()
	runDir, c := runNotesDoc(t, "bypassPermissions", "claude-code", "claude", llmtest.WireMessages, "done")
	// Its command line is the config's: Claude Code says its permission
	// mode as it starts, and the transcript keeps what it said.
	tr, err := os.ReadFile(filepath.Join(runDir, "agent-files", "claude", "transcript.jsonl"))
	if err != nil || !bytes.Contains(tr, []byte(`"permissionMode":"bypassPermissions"`)) {
		t.Errorf("claude's transcript does not start in bypassPermissions (%v):\n%.2000s", err, tr)
	}
	calls := c.Calls()
	if len(calls) < 2 || calls[0].Model != "claude-sonnet-4-5" {
		t.Errorf("the model asked for: %+v, want claude-sonnet-4-5 (model:)", calls)
	}
}

// TestCodingAgentsDocWithoutPresetRuns runs docs/coding-agents.md's
// config of a CLI without a preset as pasted: Claude Code written out by
// hand, its model through the gateway, its text answer kept. It prints
// nothing until it ends; it has no event stream optr reads, so no
// transcript and no session, but its calls are metered as a preset's are.
func TestCodingAgentsDocWithoutPresetRuns(t *testing.T) {
	t.Parallel()
	runDir, c := runNotesDoc(t, "mine:", "claude-code", "mine", llmtest.WireMessages, "notes written")
	res := meteredAsReported(t, runDir, "mine", c)
	if strings.TrimSpace(res.Output) != "notes written" || res.Session != nil {
		t.Errorf("output %q, session %s: want its text answer and no session", res.Output, res.Session)
	}
	if _, err := os.Stat(filepath.Join(runDir, "agent-files", "mine")); !os.IsNotExist(err) {
		t.Errorf("agent-files/mine: %v, want none (no preset, no transcript)", err)
	}
}

// TestCodingAgentsDocCopilotCLIRuns runs docs/coding-agents.md's config
// of the Copilot CLI as pasted: its own provider (BYOK) pointed at the
// model gateway's OpenAI endpoint, with a placeholder key, its calls
// metered as its model reported them.
func TestCodingAgentsDocCopilotCLIRuns(t *testing.T) {
	t.Parallel()
	runDir, c := runNotesDoc(t, "preset: copilot-cli", "copilot-cli", "copilot-cli", llmtest.WireResponses, "notes written")
	res := meteredAsReported(t, runDir, "copilot-cli", c)
	if strings.TrimSpace(res.Output) != "notes written" || res.Session == nil {
		t.Errorf("output %q, session %s: want its answer and its session read from its events", res.Output, res.Session)
	}
	if calls := c.Calls(); len(calls) < 2 || calls[0].Model != "gpt-5" {
		t.Errorf("the model asked for: %+v, want gpt-5 (model:)", calls)
	}
}

// docResult is what a docs test reads of an agent's result.
type docResult struct {
	Output   string          `json:"output"`
	Session  json.RawMessage `json:"session"`
	Requests []struct {
		Status int `json:"status"`
	} `json:"requests"`
	Usage struct {
		In     int64 `json:"input_tokens"`
		Out    int64 `json:"output_tokens"`
		Cached int64 `json:"cached_tokens"`
	} `json:"usage"`
}

// meteredAsReported reads agent's result in runDir and checks that every
// call its model c answered went through the gateway with the real key
// (c answers any other with 401) and was metered as c reported it.
func meteredAsReported(t *testing.T, runDir, agent string, c *llmtest.Coder) docResult {
	t.Helper()
	var res docResult
	b, err := os.ReadFile(filepath.Join(runDir, "agent-outputs", agent+".json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("%s's result: %v\n%s", agent, err, b)
	}
	calls := c.Calls()
	for _, call := range calls {
		if call.Status != 200 {
			t.Errorf("%s: its model answered %d to %s", agent, call.Status, call.Path)
		}
	}
	rep := c.Reported()
	if len(calls) == 0 || len(res.Requests) != len(calls) || res.Usage.In != rep.Input || res.Usage.Out != rep.Output || res.Usage.Cached != rep.Cached {
		t.Errorf("%s: optr metered %d calls, %+v; its model answered %d, reporting %+v", agent, len(res.Requests), res.Usage, len(calls), rep)
	}
	return res
}

// docOutput is what optr run --json says of a docs run.
type docOutput struct {
	Status, Selected string
	RunDir           string `json:"run_dir"`
	Table            []struct {
		Agent   string   `json:"agent"`
		Tokens  int64    `json:"tokens"`
		CostUSD *float64 `json:"cost_usd"`
	} `json:"table"`
}

// docEnv is optr's environment in a docs run: HOME dir, the CLIs' bin
// directories and Go's on PATH, and each fake model as the provider
// optr's environment names (the gateway's upstream and its real key).
func docEnv(dir string, bins []string, models ...*llmtest.Coder) []string {
	path := slices.Concat(bins, []string{"/usr/local/go/bin", "/usr/local/bin", "/usr/bin", "/bin"})
	env := []string{"HOME=" + dir, "LANG=C.UTF-8", "PATH=" + strings.Join(path, ":")}
	for _, c := range models {
		for k, v := range c.Env() {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runDoc runs optr on intent in ws with env until it completes; it
// returns what optr printed and the run's directory.
func runDoc(t *testing.T, ws string, env []string, intent string) (docOutput, string) {
	t.Helper()
	cmd := exec.Command(optrBin, "run", "--intent", intent, "--interactive", "never", "--json")
	cmd.Dir, cmd.Env = ws, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var out docOutput
	if err := cmd.Run(); err != nil || json.Unmarshal(stdout.Bytes(), &out) != nil || out.Status != "completed" {
		t.Fatalf("optr run: %v, status %q\n%s%s", err, out.Status, stdout.String(), stderr.String())
	}
	return out, filepath.Join(ws, out.RunDir)
}

// runNotesDoc runs the config of docs/coding-agents.md that holds marker,
// as pasted, in a repository of its own, asking for notes: the CLI of
// preset, from npm, against a fake model speaking wire that writes
// notes.txt and answers answer. The run must select agent; it returns the
// run's directory and the model.
func runNotesDoc(t *testing.T, marker, preset, agent string, wire llmtest.Wire, answer string) (string, *llmtest.Coder) {
	t.Helper()
	cfg := docConfig(t, marker)
	cli := agentcli.Get(t, preset)
	c := llmtest.NewCoder(t, wire, answer, llmtest.Edit{Path: "notes.txt", Content: "written\n"})
	dir := t.TempDir()
	ws := docWorkspace(t, dir, cfg, nil)
	out, runDir := runDoc(t, ws, docEnv(dir, []string{cli.Bin}, c), "Write the notes.")
	if out.Selected != agent {
		t.Fatalf("selected %q, want %s", out.Selected, agent)
	}
	return runDir, c
}
