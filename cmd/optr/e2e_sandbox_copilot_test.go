package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// confinementOf describes the processes running the executable exe that
// descend from process root (the optr a test started: other tests may run
// the same CLI at the same time), as the kernel shows them: their uid,
// no_new_privs, whether they share this process's network namespace, and
// whether their environment holds token.
func confinementOf(exe, token string, root int) []string {
	ownNet, _ := os.Readlink("/proc/self/ns/net")
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if got, err := os.Readlink(filepath.Join(p, "exe")); err != nil || got != exe {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		if !descends(pid, root) {
			continue
		}
		status := procStatus(pid)
		if status == nil {
			continue
		}
		uid, nnp := status["Uid"], status["NoNewPrivs"]
		net, _ := os.Readlink(filepath.Join(p, "ns", "net"))
		environ, _ := os.ReadFile(filepath.Join(p, "environ"))
		out = append(out, fmt.Sprintf("uid=%s no_new_privs=%s own-netns=%t token=%t",
			uid, nnp, net != ownNet, strings.Contains(string(environ), token)))
	}
	return out
}

// procStatus is the first field of each line of /proc/<pid>/status, by
// name; nil when the process is gone.
func procStatus(pid int) map[string]string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			if f := strings.Fields(value); len(f) > 0 {
				out[name] = f[0]
			}
		}
	}
	return out
}

// descends reports whether process pid is root or one of its descendants.
func descends(pid, root int) bool {
	for pid > 1 {
		if pid == root {
			return true
		}
		ppid, err := strconv.Atoi(procStatus(pid)["PPid"])
		if err != nil {
			return false
		}
		pid = ppid
	}
	return false
}

// TestSandboxConfinesTheCopilotCLI (issue 21): the Copilot CLI, which the
// Copilot SDK starts itself, runs under the same launcher as command
// agents — as the unprivileged user, with no_new_privs (Landlock's
// precondition), in a network namespace of its own — and without the
// workflow's token; with sandbox.mode off it runs as optr does, so the
// test can fail. What the CLI is, is read from /proc while it sends its
// model request.
func TestSandboxConfinesTheCopilotCLI(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the unprivileged user needs optr to run as root")
	}
	cli, home := llmtest.CopilotCLI(t)
	exe, err := filepath.EvalSymlinks(cli)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			fake := llmtest.NewOpenAI(t)
			fake.Script(llmtest.Reply{Text: "confined", Usage: agent.Usage{InputTokens: 1, OutputTokens: 1}})
			target, _ := url.Parse(fake.URL)
			basePath := target.Path
			target.Path = ""
			var mu sync.Mutex
			var seen []string
			optrPID := make(chan int, 1)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				root := <-optrPID
				optrPID <- root
				mu.Lock()
				seen = append(seen, confinementOf(exe, envToken[:12], root)...)
				mu.Unlock()
				httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			dir := t.TempDir()
			cfg := filepath.Join(dir, "optr.yml")
			// The CLI is readable where OPTR_COPILOT_CLI put it (sandbox.read
			// is not needed for it: optr adds the CLI's directory).
			if err := os.WriteFile(cfg, []byte(`agents:
  copilot:
    provider: copilot
    byok: openai
    base-url: `+front.URL+basePath+`
    api-key-env: OPENAI_API_KEY
    model: gpt-4.1
selection: {on-no-admissible: fail}
sandbox: { mode: `+mode+` }
`), 0o644); err != nil {
				t.Fatal(err)
			}
			run := optrCmd(dir, "run", "--config", cfg, "--datalake", filepath.Join(dir, ".optr"), "--intent", "Say confined.", "--run-id", "c", "--interactive", "never")
			run.Env = append(run.Env, "OPTR_COPILOT_CLI="+cli, "OPTR_COPILOT_HOME="+home, "OPENAI_API_KEY="+fake.Key, "GITHUB_TOKEN="+envToken)
			var output strings.Builder
			run.Stdout, run.Stderr = &output, &output
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			optrPID <- run.Process.Pid
			err := run.Wait()
			out := output.String()
			if err != nil {
				t.Fatalf("optr run: %v\n%s", err, out)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) == 0 {
				t.Fatalf("no Copilot CLI process (%s) was running when its model request arrived\n%s", exe, out)
			}
			want := "uid=65534 no_new_privs=1 own-netns=true token=false"
			if mode == "off" {
				want = "uid=" + strconv.Itoa(os.Geteuid()) + " no_new_privs=0 own-netns=false token=false"
			}
			for _, s := range seen {
				if s != want {
					t.Errorf("the Copilot CLI ran as %s, want %s\n%s", s, want, out)
				}
			}
		})
	}
}
