//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/testkit/agentcli"
	"github.com/optr-dev/optr/internal/testkit/fieldtest"
)

// presetsConfig runs the three coding-agent CLIs by their presets, as the
// docs show them, each against its own fake model, which optr's
// environment names as the provider's endpoint, with the provider's key:
// the CLIs reach them through the model gateway (the presets' gateway:),
// with placeholder keys. A command check admits only the right change.
const presetsConfig = `agents:
  claude: { preset: claude-code, model: claude-sonnet-4-5 }
  codex: { preset: codex, model: gpt-5-codex }
  gemini: { preset: gemini-cli, model: gemini-2.5-flash }
constraints:
  greeting:
    check: command
    run: [sh, -c, 'test "$(cat greeting.txt)" = "hello, world"']
changes: { mode: apply }
selection: { on-no-admissible: fail }
sandbox: { mode: %[1]s }
prices:
  claude-sonnet-4-5: { input: 3, output: 15 }
  gpt-5-codex: { input: 1.25, output: 10 }
  gemini-2.5-flash: { input: 0.3, output: 2.5 }
`

// installed are the CLIs the test runs, with the Coders' wire formats.
var presetWires = []struct {
	agent, preset string
	wire          llmtest.Wire
}{
	{"claude", preset.ClaudeCode, llmtest.WireMessages},
	{"codex", preset.Codex, llmtest.WireResponses},
	{"gemini", preset.GeminiCLI, llmtest.WireGemini},
}

// TestPresetsThroughTheBinary runs optr as users do, with the real Claude
// Code, Codex CLI and Gemini CLI from npm by their presets, as root, as
// a user, and as the container action (root under Docker's default
// seccomp profile: no namespace, the CLIs' connections made by the seccomp
// layer's supervisor), with the sandbox's auto and strict modes: each CLI edits the
// repository through its own tools, the check admits the right change
// (Gemini CLI's), and optr applies it. Each agent's event stream is read
// (turns, tool calls) and kept as its transcript; each reached its model
// through the proxy, one request a call, and nothing was refused.
func TestPresetsThroughTheBinary(t *testing.T) {
	t.Parallel()
	clis := map[string]agentcli.CLI{}
	for _, w := range presetWires {
		clis[w.agent] = agentcli.Get(t, w.preset)
	}
	for _, user := range []string{"root", "user", "docker"} {
		for _, mode := range []string{"auto", "strict"} {
			t.Run(user+"/"+mode, func(t *testing.T) {
				if os.Geteuid() != 0 {
					if user != "root" {
						t.Skip("the test runs optr as another user, or in Docker's field, only when it runs as root")
					}
				}
				dir := t.TempDir()
				ws := filepath.Join(dir, "workspace")
				bins := make([]string, 0, len(presetWires))
				coders := map[string]*llmtest.Coder{}
				var providerEnv []string // the fakes as optr's providers: endpoints and keys
				for _, w := range presetWires {
					content := "hello there\n"
					if w.agent == "gemini" {
						content = "hello, world\n"
					}
					c := llmtest.NewCoder(t, w.wire, w.agent+" changed the greeting", llmtest.Edit{Path: "greeting.txt", Content: content})
					coders[w.agent] = c
					for k, v := range c.Env() {
						providerEnv = append(providerEnv, k+"="+v)
					}
					bins = append(bins, clis[w.agent].Bin)
				}
				if user == "user" {
					// The user cannot pass into root's home: the CLIs are
					// linked, file by file, into a directory of the test.
					bins = bins[:0]
					for _, w := range presetWires {
						bins = append(bins, linkTree(t, clis[w.agent].Dir, filepath.Join(dir, "npm", w.preset)))
					}
				}
				if err := os.MkdirAll(filepath.Join(ws, ".github"), 0o755); err != nil {
					t.Fatal(err)
				}
				write := func(p, s string) {
					if err := os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				write(".github/optr.yml", fmt.Sprintf(presetsConfig, mode))
				write("greeting.txt", "hello\n")
				gitInit(t, ws)
				cmd := exec.Command(optrBin, "run", "--intent", "Make the greeting say hello, world.", "--interactive", "never", "--json")
				cmd.Dir = ws
				cmd.Env = append([]string{"PATH=" + strings.Join(bins, ":") + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8"}, providerEnv...)
				if user == "user" {
					// Its own temporary directory: /tmp/optr-worktrees may be
					// root's from an earlier run.
					tmp := filepath.Join(dir, "tmp")
					if err := os.Mkdir(tmp, 0o700); err != nil {
						t.Fatal(err)
					}
					cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
					asUser(t, cmd, dir)
				}
				if user == "docker" {
					fieldtest.Env{Docker: true}.Wrap(t, cmd)
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				log := stdout.String() + stderr.String()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatal(err)
				}
				if mode == "strict" && ee != nil && ee.ExitCode() == 2 && strings.Contains(log, "sandbox.mode is strict") {
					t.Skipf("this machine cannot enforce every layer for %s: %s", user, log)
				}
				if err != nil {
					for _, w := range presetWires {
						var res struct{ Error string }
						_ = json.Unmarshal([]byte(findFile(t, filepath.Join(ws, ".optr"), w.agent+".json")), &res)
						log += "\n" + w.agent + ": " + res.Error
					}
					t.Fatalf("optr run: %v\n%s", err, log)
				}
				var out struct {
					Status   string `json:"status"`
					Selected string `json:"selected"`
				}
				if user == "docker" && !strings.Contains(log, ", net seccomp,") {
					t.Errorf("in Docker's field the seccomp layer should hold the network:\n%s", log)
				}
				if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Status != "completed" || out.Selected != "gemini" {
					t.Fatalf("status %q selected %q (%v), want gemini's change\n%s", out.Status, out.Selected, err, log)
				}
				if got, _ := os.ReadFile(filepath.Join(ws, "greeting.txt")); string(got) != "hello, world\n" {
					t.Errorf("greeting.txt after the run = %q, want π*'s change applied", got)
				}
				lake := filepath.Join(ws, ".optr")
				metered := map[string]agent.Usage{}
				for _, w := range presetWires {
					var res struct {
						Status  string `json:"status"`
						Session *struct {
							Format    string `json:"format"`
							Turns     int    `json:"turns"`
							ToolCalls int    `json:"tool_calls"`
						} `json:"session"`
						Network []struct {
							Host    string `json:"host"`
							Port    int    `json:"port"`
							Allowed bool   `json:"allowed"`
						} `json:"network"`
						Usage    agent.Usage  `json:"usage"`
						Requests []agent.Call `json:"requests"`
					}
					if err := json.Unmarshal([]byte(findFile(t, lake, w.agent+".json")), &res); err != nil {
						t.Fatalf("%s's result: %v", w.agent, err)
					}
					if res.Session == nil || res.Session.Turns < 1 || res.Session.ToolCalls < 1 {
						t.Errorf("%s: session %+v, want its turns and tool calls read from its stream", w.agent, res.Session)
					}
					for _, h := range res.Network {
						if !h.Allowed {
							t.Errorf("%s: %s:%d was refused", w.agent, h.Host, h.Port)
						}
						if fmt.Sprintf("%s:%d", h.Host, h.Port) == coders[w.agent].Host() {
							t.Errorf("%s reached its model past the gateway", w.agent)
						}
					}
					// Every call went through the gateway, metered exactly as
					// the model reported it, the placeholder swapped for the
					// real key.
					c := coders[w.agent]
					rep := c.Reported()
					want := agent.Usage{InputTokens: rep.Input, OutputTokens: rep.Output, CachedTokens: rep.Cached}
					calls := len(c.Calls())
					if calls < 2 || len(res.Requests) != calls || res.Usage != want {
						t.Errorf("%s: its model had %d calls reporting %+v; the gateway metered %d, %+v", w.agent, calls, want, len(res.Requests), res.Usage)
					}
					metered[w.agent] = want
					for _, call := range c.Calls() {
						for k, vs := range call.Header {
							if strings.Contains(strings.Join(vs, " "), "optr-gateway-") {
								t.Errorf("%s: its model got the placeholder in %s, not the real key", w.agent, k)
							}
						}
					}
					if tr := findFile(t, lake, "transcript.jsonl"); !strings.HasPrefix(tr, "{") {
						t.Errorf("no transcript kept")
					}
				}
				presetTotals(t, ws, lake, metered)
				if _, err := os.Stat(filepath.Join(lake, "checkpoints")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the run paused at a checkpoint (%v)\n%s", err, log)
				}
			})
		}
	}
}

// linkTree makes dst a copy of the directory src whose files are hard
// links (links and directories made anew), and returns its
// node_modules/.bin: an npm install another user can reach.
func linkTree(t *testing.T, src, dst string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-al", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -al %s: %v\n%s", src, err, out)
	}
	return filepath.Join(dst, "node_modules", ".bin")
}

// testUID is the user the test runs optr as: not root, in no group of
// root's.
const testUID = 1000

// asUser runs cmd as testUID, with home its HOME, and gives that user
// what optr needs: home, the workspace in it, and the binaries.
func asUser(t *testing.T, cmd *exec.Cmd, home string) {
	t.Helper()
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(p, string(filepath.Separator)+"npm"+string(filepath.Separator)) {
			return nil // the linked CLIs stay root's, readable by everyone
		}
		return os.Lchown(p, testUID, testUID)
	})
	if err != nil {
		t.Fatal(err)
	}
	for d := home; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			_ = os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	_ = os.Chmod(filepath.Dir(optrBin), 0o755)
	as := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: testUID, Gid: testUID}}
	// The chown changed every file's ctime: the index is refreshed, as
	// the user's own checkout would be.
	refresh := exec.Command("git", "update-index", "-q", "--refresh")
	refresh.Dir, refresh.SysProcAttr, refresh.Env = cmd.Dir, as, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	if out, err := refresh.CombinedOutput(); err != nil {
		t.Fatalf("git update-index: %v\n%s", err, out)
	}
	cmd.SysProcAttr = as
}

// TestRunRefusesAProgramTheSandboxCannotRead: a command agent whose
// program lies outside what a sandboxed process reads is refused before
// any agent starts — exit 2, naming the agent and sandbox.read — never an
// attempt that fails and a checkpoint that asks whether to proceed. Listed
// in sandbox.read, it runs.
func TestRunRefusesAProgramTheSandboxCannotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "workspace"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(outside, "agent.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch \"$OPTR_OUTPUT_DIR/started\"\necho fine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, read := range []string{"", outside} {
		cfg := fmt.Sprintf("agents:\n  outsider: { provider: command, run: [%s] }\nsandbox: { mode: auto, read: [%s] }\n", script, read)
		if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(optrBin, "run", "--config", "optr.yml", "--intent", "Say fine.", "--interactive", "never")
		cmd.Dir = ws
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir}
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		started, _ := filepath.Glob(filepath.Join(ws, ".optr", "workflows", "*", "runs", "*", "agent-files", "started"))
		if read != "" {
			if code != 0 || len(started) != 1 {
				t.Errorf("with sandbox.read: exit %d, started %v\n%s", code, started, out)
			}
			continue
		}
		if code != 2 || !strings.Contains(string(out), "agents.outsider") || !strings.Contains(string(out), "add "+outside+" to sandbox.read") {
			t.Errorf("exit %d, want 2 naming agents.outsider and the fix:\n%s", code, out)
		}
		if len(started) > 0 || strings.Contains(string(out), "checkpoint") {
			t.Errorf("the agent started, or the run paused:\n%s", out)
		}
	}
}

// TestARefusedHostIsAFindingNotAFailure: an agent that calls home, is
// refused, and answers anyway succeeds and is selected; the refusal is in
// its network record, named in the score table, and a finding of threat
// detection on its result (delivered here with detection.on-finding:
// warn).
func TestARefusedHostIsAFindingNotAFailure(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cfg := `agents:
  phoner:
    provider: command
    run: [sh, -c, 'cat >/dev/null; curl -s -o /dev/null https://telemetry.example/ping; echo "the answer"']
detection: { on-finding: warn }
sandbox: { mode: auto }
`
	if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(optrBin, "run", "--config", "optr.yml", "--intent", "Answer.", "--interactive", "never")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + ws}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("optr run: %v\n%s", err, out)
	}
	for _, want := range []string{"refused telemetry.example:443", "network/refused", "phoner tried to reach telemetry.example:443"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out)
		}
	}
	res := findFile(t, filepath.Join(ws, ".optr"), "phoner.json")
	if !strings.Contains(res, `"status": "succeeded"`) || !strings.Contains(res, `"host": "telemetry.example"`) {
		t.Errorf("phoner's result:\n%s", res)
	}
	if ledger := findFile(t, filepath.Join(ws, ".optr"), "ledger.jsonl"); !strings.Contains(ledger, `"detector":"network"`) || !strings.Contains(ledger, `"verdict":"warn"`) {
		t.Errorf("the ledger's detection:\n%s", ledger)
	}
}

// presetPrices are presetsConfig's prices: input and output US dollars per
// million tokens.
var presetPrices = map[string][2]float64{"claude": {3, 15}, "codex": {1.25, 10}, "gemini": {0.3, 2.5}}

// presetTotals checks that the ledger and optr ledger stats agree with
// what each agent's model reported (metered): every agent's tokens and
// cost exactly, the run's total their sum.
func presetTotals(t *testing.T, ws, lake string, metered map[string]agent.Usage) {
	t.Helper()
	var tokens int64
	var usd float64
	want := map[string]float64{}
	for name, u := range metered {
		p := presetPrices[name]
		want[name] = (float64(u.InputTokens)*p[0] + float64(u.OutputTokens)*p[1]) / 1e6
		tokens, usd = tokens+u.Total(), usd+want[name]
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	b, err := os.ReadFile(filepath.Join(lake, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Tokens  *int64   `json:"tokens"`
		CostUSD *float64 `json:"cost_usd"`
		Results []struct {
			Agent     string   `json:"agent"`
			TokensIn  *int64   `json:"tokens_in"`
			TokensOut *int64   `json:"tokens_out"`
			CostUSD   *float64 `json:"cost_usd"`
		} `json:"results"`
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &run); err != nil {
		t.Fatal(err)
	}
	if run.Tokens == nil || *run.Tokens != tokens || run.CostUSD == nil || !near(*run.CostUSD, usd) {
		t.Errorf("the run's totals %v tokens, $%v; want %d, $%g", run.Tokens, run.CostUSD, tokens, usd)
	}
	for _, r := range run.Results {
		u := metered[r.Agent]
		if r.TokensIn == nil || *r.TokensIn != u.InputTokens || r.TokensOut == nil || *r.TokensOut != u.OutputTokens || r.CostUSD == nil || !near(*r.CostUSD, want[r.Agent]) {
			t.Errorf("ledger result %s: %v in, %v out, $%v; want %+v at $%g", r.Agent, r.TokensIn, r.TokensOut, r.CostUSD, u, want[r.Agent])
		}
	}
	code, stdout, stderr := optrIn(t, ws, nil, "ledger", "stats", "--ledger", filepath.Join(lake, "ledger.jsonl"), "--json")
	var stats struct {
		Agents []struct {
			Agent   string   `json:"agent"`
			Tokens  *int64   `json:"tokens"`
			CostUSD *float64 `json:"cost_usd"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(stdout), &stats); code != 0 || err != nil || len(stats.Agents) != len(metered) {
		t.Fatalf("optr ledger stats: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	for _, a := range stats.Agents {
		if a.Tokens == nil || *a.Tokens != metered[a.Agent].Total() || a.CostUSD == nil || !near(*a.CostUSD, want[a.Agent]) {
			t.Errorf("stats of %s: %v tokens, $%v; want %d, $%g", a.Agent, a.Tokens, a.CostUSD, metered[a.Agent].Total(), want[a.Agent])
		}
	}
}

// TestPresetsStopAtTheDaysBudget: a day's budget smaller than one run
// stops the real CLIs at the model gateway: each one's first call is
// answered in its provider's own error shape with the figures, the fake
// models are never asked, and each agent's result says the budget stopped
// it, with the figures; the run stops at the budget.
func TestPresetsStopAtTheDaysBudget(t *testing.T) {
	t.Parallel()
	clis := map[string]agentcli.CLI{}
	for _, w := range presetWires {
		clis[w.agent] = agentcli.Get(t, w.preset)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	var bins, providerEnv []string
	coders := map[string]*llmtest.Coder{}
	for _, w := range presetWires {
		c := llmtest.NewCoder(t, w.wire, w.agent+" changed the greeting", llmtest.Edit{Path: "greeting.txt", Content: "hello, world\n"})
		coders[w.agent] = c
		for k, v := range c.Env() {
			providerEnv = append(providerEnv, k+"="+v)
		}
		bins = append(bins, clis[w.agent].Bin)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The prompt of any of the CLIs, thousands of tokens, passes $0.00001.
	cfg := fmt.Sprintf(presetsConfig, "auto") + "budget: { max-usd-per-day: 0.00001 }\n"
	if err := os.WriteFile(filepath.Join(ws, ".github", "optr.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "greeting.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitInit(t, ws)
	cmd := exec.Command(optrBin, "run", "--intent", "Make the greeting say hello, world.", "--interactive", "never", "--json")
	cmd.Dir = ws
	cmd.Env = append([]string{"PATH=" + strings.Join(bins, ":") + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8"}, providerEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	log := stdout.String() + stderr.String()
	const figures = "of $0.00001 spent today (UTC)"
	lake := filepath.Join(ws, ".optr")
	for _, w := range presetWires {
		if n := len(coders[w.agent].Calls()); n != 0 {
			t.Errorf("%s's model was asked %d times past the budget", w.agent, n)
		}
		var res struct {
			Status          string       `json:"status"`
			Error           string       `json:"error"`
			BudgetExhausted bool         `json:"budget_exhausted"`
			Requests        []agent.Call `json:"requests"`
		}
		if err := json.Unmarshal([]byte(findFile(t, lake, w.agent+".json")), &res); err != nil {
			t.Fatalf("%s's result: %v\n%s", w.agent, err, log)
		}
		if res.Status == "succeeded" || !res.BudgetExhausted || !strings.Contains(res.Error, "budget.max-usd-per-day") || !strings.Contains(res.Error, figures) {
			t.Errorf("%s: %s, budget_exhausted %v, error %q; want it stopped by the day's budget with the figures", w.agent, res.Status, res.BudgetExhausted, res.Error)
		}
		if len(res.Requests) == 0 || res.Requests[0].Refused == "" {
			t.Errorf("%s: requests %+v; want its refused call recorded", w.agent, res.Requests)
		}
	}
	var out struct{ Status, Message string }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Status != "failed" ||
		!strings.Contains(out.Message, "the run's budget stopped its agents (budget.max-usd-per-day: $0.00 "+figures+"; this call would add about $") {
		t.Errorf("the run %q: %q (%v); want it failed, naming the budget with the figures\n%s", out.Status, out.Message, err, log)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "greeting.txt")); string(got) != "hello\n" {
		t.Errorf("greeting.txt = %q: a change was applied past the budget", got)
	}
}
