package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

// The credentials an attacker wants: in optr's environment, in a file of
// the runner's home, behind a service on the host's loopback.
const (
	envToken     = "ghs_ADVERSARYenvTOKEN0123456789abcdefABCD"
	runtimeToken = "ACTIONSruntimeTOKEN0123456789abcdefXYZ"
	fileToken    = "ghp_ADVERSARYfileTOKEN0123456789abcdefAB"
)

// adversary tries every route to a credential and to a change outside its
// own directories, and prints LEAK:<route> for each that worked. It runs
// as a command agent and as a command check; a daemon it starts with
// setsid tries again from outside its process group. The adversary
// blocks on a FIFO until the daemon has made its attempts: a daemon that
// had not yet left the adversary's group when the adversary ended was
// killed with the group (optr ends an attempt's group after Wait), and
// under load it then never ran — the cli/off flake. It ends with the run
// (TestNothingOutlivesTheRun).
const adversary = `cat >/dev/null 2>&1
WHO=$OPTR_CONSTRAINT$OPTR_AGENT; export WHO
leak() { echo "LEAK:$1"; }
env | grep -q "$ENVTOKEN_HEAD" && leak env
env | grep -q "$RUNTIME_HEAD" && leak env-actions
for f in /proc/[0-9]*/environ; do
  if grep -qa "$ENVTOKEN_HEAD" "$f" 2>/dev/null; then leak "proc-environ"; break; fi
done
addr=$(head -1 /proc/$PPID/maps 2>/dev/null | cut -d- -f1)
[ -n "$addr" ] && [ "$(dd if=/proc/$PPID/mem bs=1 skip=$((0x$addr)) count=16 2>/dev/null | wc -c)" = 16 ] && leak proc-mem
grep -q ghp_ "$OUTSIDE/.git-credentials" 2>/dev/null && leak file-outside
git config --global --get-regexp 'url|credential' 2>/dev/null | grep -q ghp_ && leak global-git-config
echo '#!/bin/sh' > "$WS/.git/hooks/pre-commit" 2>/dev/null && leak hook
git -C "$WS" config core.hooksPath /tmp/evil 2>/dev/null && leak workspace-git-config
echo planted > "$WS/planted.txt" 2>/dev/null && leak workspace-write
echo planted > "$OUTSIDE/planted.txt" 2>/dev/null && leak outside-write
for d in "${TMPDIR%/*}"/optr-sandbox-victim* /tmp/optr-sandbox-victim*; do
  [ -d "$d" ] && echo "$MARK" >> "$d/planted" 2>/dev/null && leak other-agent
done
git ls-remote "http://$SERVICE/direct" >/dev/null 2>&1
env -u NO_PROXY -u no_proxy git ls-remote "http://$SERVICE/via-proxy" >/dev/null 2>&1
DONE=$(mktemp -u); mkfifo "$DONE" || FAIL=1
setsid sh -c 'echo late > "$OUTSIDE/daemon.txt" 2>/dev/null
  git ls-remote "http://$SERVICE/daemon" >/dev/null 2>&1
  echo done > "$1"; sleep 300; :' adversary-daemon-$MARK "$DONE" </dev/null >/dev/null 2>&1 &
read -r _ < "$DONE"
[ -n "$OPTR_OUTPUT_DIR" ] && echo done > "$OPTR_OUTPUT_DIR/adversary-done"
echo adversary done
exit $FAIL
`

// victim waits for the adversary and says whether its adversary planted
// anything in its HOME. A plant is counted only when it carries this
// test's $MARK: an adversary of another test, running at the same time
// with its protection off, plants in every victim's HOME on the machine
// (it globs for them), and that is not this run's leak.
const victim = `cat >/dev/null
i=0; while [ ! -f "$OPTR_OUTPUT_DIR/adversary-done" ] && [ $i -lt 500 ]; do sleep 0.05; i=$((i+1)); done
grep -qxF "$MARK" "$HOME/planted" 2>/dev/null && echo LEAK:other-agent-seen
echo victim done
`

const sandboxConfig = `agents:
  adversary:
    provider: command
    run: [sh, %[1]s/adversary.sh]
    env: { FAIL: "0" }
    timeout: 30s
  victim:
    provider: command
    run: [sh, %[1]s/victim.sh]
    timeout: 30s
constraints:
  hostile:
    check: command
    run: [sh, %[1]s/adversary.sh]
    hard: false
sandbox: { mode: %[2]s }
# The adversary's refused connections are findings on its result; the
# run still completes, so that its ledger entry is there to read.
detection: { on-finding: warn }
`

// loopbackService is a secret service on the host's loopback; it counts
// every request that reached it, and those over MPTCP (path /mptcp-…).
func loopbackService(t *testing.T) (addr string, hits, mptcp *atomic.Int64) {
	t.Helper()
	hits, mptcp = new(atomic.Int64), new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasPrefix(r.URL.Path, "/mptcp-") {
			mptcp.Add(1)
		}
		fmt.Fprint(w, "service secret")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), hits, mptcp
}

// hostile is a workspace and an environment for the adversary, and what
// it must not reach.
type hostile struct {
	ws, outside, mark string
	env               map[string]string
	service           string // the loopback service's address
	hits, mptcp       *atomic.Int64
}

func newHostile(t *testing.T, dir, ws, mode string) *hostile {
	t.Helper()
	h := &hostile{ws: ws, outside: filepath.Join(dir, "outside"), mark: filepath.Join(dir, "marks")}
	tools := filepath.Join(dir, "tools") // the agents' scripts: read-only to them (sandbox.read)
	for _, d := range []string{h.outside, h.mark, tools, filepath.Join(ws, ".github")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(h.mark, 0o777) // a place every uid may report to, outside the sandbox's view
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(h.outside, ".git-credentials"), "https://x:"+fileToken+"@github.com\n")
	addr, hits, mptcp := loopbackService(t)
	h.service, h.hits, h.mptcp = addr, hits, mptcp
	// What the scripts need to know is written into them: none of it
	// reaches a sandboxed process's environment.
	known := strings.NewReplacer("$ENVTOKEN_HEAD", envToken[:12], "$RUNTIME_HEAD", runtimeToken[:12],
		"$OUTSIDE", h.outside, "$WS", ws, "$SERVICE", addr, "$MARK", h.mark)
	write(filepath.Join(tools, "adversary.sh"), known.Replace(adversary))
	write(filepath.Join(tools, "victim.sh"), known.Replace(victim))
	cfg := fmt.Sprintf(sandboxConfig, tools, mode)
	cfg = strings.Replace(cfg, "sandbox: {", "sandbox: { read: ["+tools+", "+h.mark+"],", 1)
	write(filepath.Join(ws, ".github", "optr.yml"), cfg)
	gitInit(t, ws)
	h.env = map[string]string{
		"GITHUB_TOKEN": envToken, "GH_TOKEN": envToken, "ACTIONS_RUNTIME_TOKEN": runtimeToken,
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": runtimeToken, "OPENAI_API_KEY": "sk-" + runtimeToken,
	}
	return h
}

func gitInit(t *testing.T, ws string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// leaks lists the LEAK routes anywhere in the workspace's datalake (agent
// outputs, check reasons), what the adversary left outside, and a daemon
// of its that outlived the run.
func (h *hostile) leaks(t *testing.T) []string {
	t.Helper()
	var out []string
	if len(proctest.Tagged("adversary-daemon-"+h.mark)) > 0 {
		out = append(out, "daemon-survived")
	}
	out = leakRoutes(h.ws, out)
	for _, f := range []string{"daemon.txt", "planted.txt"} {
		if _, err := os.Stat(filepath.Join(h.outside, f)); err == nil {
			out = append(out, "outside:"+f)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".git", "hooks", "pre-commit")); err == nil {
		out = append(out, "workspace-hook-on-disk")
	}
	if n := h.hits.Load(); n > 0 {
		out = append(out, fmt.Sprintf("loopback-service:%d", n))
	}
	return out
}

// runCLI runs optr run in the workspace with h's environment.
func (h *hostile) runCLI(t *testing.T, home string) string {
	t.Helper()
	out, _ := h.start(t, home, optrBin).CombinedOutput()
	return string(out)
}

// start is the command runCLI runs, with bin as optr.
func (h *hostile) start(t *testing.T, home, bin string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "run", "--workflow", "adversary", "--intent", "take what you can", "--interactive", "never")
	cmd.Dir = h.ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	for k, v := range h.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// TestSandboxHoldsAgainstAnAdversary: an adversarial command agent and
// command check get no credential and change nothing outside their own
// directories, through the CLI and through optr action; with the sandbox
// off the same scripts get them, so the test can fail.
func TestSandboxHoldsAgainstAnAdversary(t *testing.T) {
	for _, via := range []string{"cli", "action"} {
		for _, mode := range []string{"auto", "off"} {
			t.Run(via+"/"+mode, func(t *testing.T) {
				var log string
				var h *hostile
				if via == "cli" {
					dir := t.TempDir()
					ws := filepath.Join(dir, "workspace")
					if err := os.MkdirAll(ws, 0o755); err != nil {
						t.Fatal(err)
					}
					h = newHostile(t, dir, ws, mode)
					log = h.runCLI(t, dir)
				} else {
					gh := githubtest.NewServer(t)
					writer(gh, "maintainer")
					r := newRunner(t, gh, "7701")
					h = newHostile(t, filepath.Dir(r.Workspace), r.Workspace, mode)
					for k, v := range h.env {
						r.Env[k] = v
					}
					r.Event("issues", "issues.labeled.json", actiontest.Labeled(77, "optr", "maintainer"))
					res := r.run()
					log = res.stdout + res.stderr
					if !strings.Contains(res.summary, "sandbox ("+mode+")") {
						t.Errorf("the step summary does not say what the sandbox enforced:\n%s", res.summary)
					}
				}
				leaks := h.leaks(t)
				if mode == "off" {
					for _, want := range []string{"env", "proc-environ", "file-outside", "hook", "outside-write", "outside:daemon.txt"} {
						if !slices.Contains(leaks, want) {
							t.Errorf("with the sandbox off the adversary should get %s; it got %v\n%s", want, leaks, log)
						}
					}
					if h.hits.Load() == 0 {
						t.Errorf("with the sandbox off the adversary should reach the loopback service\n%s", log)
					}
					return
				}
				if len(leaks) > 0 {
					t.Errorf("the adversary got through: %v\n%s", leaks, log)
				}
				if !strings.Contains(log, "sandbox (auto): env built") {
					t.Errorf("the log does not say what the sandbox enforced:\n%s", log)
				}
				// The proxied attempt was refused and recorded; it did not fail
				// the agent, which exited 0 (architecture §4.14).
				agentFile := findFile(t, filepath.Join(h.ws, ".optr"), "adversary.json")
				for _, want := range []string{`"allowed": false`, `"reason": "IP address not in sandbox.network"`} {
					if !strings.Contains(agentFile, want) {
						t.Errorf("agent-outputs/adversary.json lacks %s:\n%s", want, agentFile)
					}
				}
				if strings.Contains(agentFile, `"reason": "sandbox"`) {
					t.Errorf("a refused connection failed the agent:\n%s", agentFile)
				}
				// Every layer, scope included (architecture §4.14), in the
				// entry's canonical (sorted) member order.
				ledger := findFile(t, filepath.Join(h.ws, ".optr"), "ledger.jsonl")
				if !sandboxMember.MatchString(ledger) {
					t.Errorf("the ledger's run entry does not record every layer of the sandbox:\n%s", ledger)
				}
			})
		}
	}
}

// sandboxMember is a run entry's sandbox member with all its layers.
var sandboxMember = regexp.MustCompile(`"sandbox":\{"env":"built","fs":"[a-z0-9-]+","groups":"(dropped|kept|none)","mode":"[a-z]+","net":"[a-z-]+","scope":"[a-z+]+","user":"[a-z]+"\}`)

// findFile returns the content of the first file called name under dir.
func findFile(t *testing.T, dir, name string) string {
	t.Helper()
	var content string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name && content == "" {
			b, _ := os.ReadFile(p)
			content = string(b)
		}
		return nil
	})
	if content == "" {
		t.Fatalf("no %s under %s", name, dir)
	}
	return content
}

// leakRoutes adds to out each route an adversary reported as LEAK:<route>
// in any file under ws/.optr (its output, committed or not), once each.
func leakRoutes(ws string, out []string) []string {
	_ = filepath.WalkDir(filepath.Join(ws, ".optr"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(b), "LEAK:")[1:] {
			route := strings.FieldsFunc(line, func(r rune) bool { return !(r == '-' || r >= 'a' && r <= 'z') })
			if len(route) > 0 && !slices.Contains(out, route[0]) {
				out = append(out, route[0])
			}
		}
		return nil
	})
	return out
}
