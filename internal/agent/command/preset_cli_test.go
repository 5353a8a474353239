package command

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/testkit/agentcli"
)

// wireOf is the wire format each preset's CLI speaks to its model.
var wireOf = map[string]llmtest.Wire{
	preset.ClaudeCode: llmtest.WireMessages,
	preset.Codex:      llmtest.WireResponses,
	preset.GeminiCLI:  llmtest.WireGemini,
	preset.CopilotCLI: llmtest.WireResponses,
}

// modelOf is the model the tests give each preset's CLI: Codex CLI's
// default model calls tools through a JavaScript "exec" tool the fake
// does not speak; gpt-5-codex has exec_command. The Copilot CLI needs one
// on a provider of the user's.
var modelOf = map[string]string{preset.Codex: "gpt-5-codex", preset.CopilotCLI: "gpt-5"}

// The real CLIs, as npm installs them, run by their presets against fake
// model servers that have them write a file with their own tools: each
// changes the file, answers, and its event stream is read for its answer,
// turns, tool calls and use, and kept as its transcript. Under the sandbox
// the CLI, installed under the user's cache (outside what a sandboxed
// process reads), is made readable, and its model's loopback address,
// listed in sandbox.network, is reached through the proxy despite
// NO_PROXY.
func TestPresetsRunTheRealCLIs(t *testing.T) {
	for _, name := range preset.Names() {
		for _, mode := range []string{"none", config.SandboxAuto} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				cli := agentcli.Get(t, name)
				const answer = "Done: wrote hello.txt"
				coder := llmtest.NewCoder(t, wireOf[name], answer, llmtest.Edit{Path: "hello.txt", Content: "hi from " + name + "\n"})
				cfg := config.Agent{Provider: config.ProviderCommand, Preset: name, Env: coder.Env()}
				cfg.Model = modelOf[name]
				environ := []string{"PATH=" + cli.Bin + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
				opts := Options{Environ: environ, Redactor: redact.New(coder.Key)}
				if mode != "none" {
					sbx := sandbox.New(sandbox.Settings{Mode: mode, Hosts: []string{coder.Host()}, Environ: environ})
					if err := sbx.Start(t.Context()); err != nil {
						t.Fatal(err)
					}
					opts.Sandbox = sbx
				}
				a := newAgent(t, cfg, opts)
				work, out := gitRepo(t), t.TempDir()
				var progress progressLog
				resp, err := a.Run(t.Context(), agent.Request{
					Intent: "Write hello.txt.", Dir: work, Worktree: work, OutputDir: out, Progress: progress.report,
				})
				if err != nil {
					t.Fatalf("Run: %v\nstderr:\n%s", err, resp.Stderr)
				}
				if got, _ := os.ReadFile(filepath.Join(work, "hello.txt")); string(got) != "hi from "+name+"\n" {
					t.Errorf("hello.txt = %q, want the fake model's edit", got)
				}
				if resp.Output != answer {
					t.Errorf("output = %q, want the CLI's answer %q", resp.Output, answer)
				}
				s := resp.Session
				if s == nil || s.Format != cli.Preset.Format || s.Turns < 1 || s.ToolCalls < 1 || s.Error != "" {
					t.Errorf("session = %+v, want turns and tool calls read from its stream", s)
				}
				calls := coder.Calls()
				if len(calls) < 2 || !edited(calls) {
					for _, c := range calls {
						t.Logf("call %s round %d tools %q", c.Path, c.Round, c.Tools)
					}
					t.Errorf("the fake model answered %d requests, none with the edit, want the edit then the answer", len(calls))
				}
				transcript, err := os.ReadFile(filepath.Join(out, "scripted", "transcript.jsonl"))
				if err != nil || !strings.HasPrefix(string(transcript), "{") {
					t.Errorf("transcript: %v %.100q", err, transcript)
				}
				if strings.Contains(string(transcript), coder.Key) {
					t.Errorf("the transcript holds the key")
				}
				if mode != "none" {
					var reached bool
					for _, h := range resp.Network {
						reached = reached || (h.Allowed && h.Requests >= len(calls))
						if !h.Allowed {
							t.Errorf("the sandbox refused %s:%d (%s)", h.Host, h.Port, h.Reason)
						}
					}
					if !reached {
						t.Errorf("network = %+v, want the model's host reached through the proxy, one request a call (%d)", resp.Network, len(calls))
					}
				}
			})
		}
	}
}

// gitRepo is a new repository with one commit, as an agent's worktree is.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// edited reports whether one of calls was answered with the edit.
func edited(calls []llmtest.CoderCall) bool {
	for _, c := range calls {
		if c.Edited {
			return true
		}
	}
	return false
}

// A telemetry host the sandbox refuses does not fail an agent that did
// its work: Codex CLI run without the preset's analytics and plugins
// switches calls home, is refused, carries on, and succeeds; the
// refusals are in its network record.
func TestRefusedTelemetryDoesNotFailTheAgent(t *testing.T) {
	t.Parallel()
	cli := agentcli.Get(t, preset.Codex)
	coder := llmtest.NewCoder(t, llmtest.WireResponses, "done", llmtest.Edit{Path: "hello.txt", Content: "hi\n"})
	environ := []string{"PATH=" + cli.Bin + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	sbx := sandbox.New(sandbox.Settings{Mode: config.SandboxAuto, Hosts: []string{coder.Host()}, Environ: environ})
	if err := sbx.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, config.Agent{Preset: preset.Codex, Model: "gpt-5-codex", Env: coder.Env(),
		Run: []string{"codex", "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}},
		Options{Environ: environ, Sandbox: sbx})
	work := gitRepo(t)
	resp, err := a.Run(t.Context(), agent.Request{Intent: "Write hello.txt.", Dir: work, Worktree: work, OutputDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var refused []string
	for _, h := range resp.Network {
		if !h.Allowed {
			refused = append(refused, h.Host)
		}
	}
	if len(refused) == 0 {
		t.Fatalf("nothing was refused: %+v; the test needs Codex CLI to call home", resp.Network)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "hello.txt")); string(got) != "hi\n" || resp.Output != "done" {
		t.Errorf("hello.txt %q, output %q: the agent's work is lost", got, resp.Output)
	}
	t.Logf("refused and recorded: %v", refused)
}

// Traffic through the proxy is a sign of life: an agent that writes
// nothing while it waits on its model is not stuck. The script's requests
// are heard, though its stdout stays empty until the end.
func TestProxyTrafficIsProgress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") }))
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	environ := []string{"PATH=" + testPath}
	sbx := sandbox.New(sandbox.Settings{Mode: config.SandboxAuto, Hosts: []string{host}, Environ: environ})
	if err := sbx.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, config.Agent{Run: []string{"sh", "-c", "for i in 1 2 3; do curl -sf http://" + host + "/ >/dev/null || exit 7; done"}},
		Options{Environ: environ, Sandbox: sbx})
	var progress progressLog
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir(), Progress: progress.report})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, resp.Stderr)
	}
	progress.mu.Lock()
	defer progress.mu.Unlock()
	if progress.bytes != 0 || progress.calls < 3 {
		t.Errorf("%d signs of life, %d output bytes; want one a request at least, no output", progress.calls, progress.bytes)
	}
	if len(resp.Network) != 1 || resp.Network[0].Requests != 3 {
		t.Errorf("network = %+v, want 3 requests", resp.Network)
	}
}
