//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

// leaver is a command agent that leaves two processes behind, tagged
// with TAG, and ends once both run: one that left with setsid and an
// empty environment (TAG-unmarked: no marker of optr's reaches it), and a
// double fork that setsids (TAG-forked). Each says it runs through a FIFO
// the leaver blocks on, then waits in the shell itself, opening a FIFO no
// one writes: one that forked a sleep would, until the sleep is exec'd,
// have a child that carries the tag too.
const leaver = `cat >/dev/null
d=$(mktemp -d); mkfifo "$d/a" "$d/b" "$d/hold" || exit 1
setsid env -i sh -c 'echo > "$1/a"; read x < "$1/hold"' TAG-unmarked "$d" </dev/null >/dev/null 2>&1 &
( setsid sh -c 'echo > "$1/b"; read x < "$1/hold"' TAG-forked "$d" </dev/null >/dev/null 2>&1 & ) &
read -r _ < "$d/a"; read -r _ < "$d/b"
echo left two behind
`

// noSubreaperBin is optr built with the subreapers off (optr's own and
// the sandbox launcher's), once, with its launcher, built so too, beside
// it.
var noSubreaperBin = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(filepath.Dir(optrBin), "no-subreaper")
	build := exec.Command("go", "build", "-o", dir+"/", "-ldflags",
		"-X github.com/optr-dev/optr/internal/procgroup.noSubreaper=1 -X github.com/optr-dev/optr/internal/sandbox/launcher/child.noSubreaper=1",
		".", "../optr-sandbox-launcher")
	out, err := build.CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return filepath.Join(dir, "optr"), nil
})

// TestNothingOutlivesTheRun (issue 27 item 14): what an agent leaves
// behind — a setsid child with an empty environment, a double fork — is
// ended with the run, with the sandbox (the launcher, a subreaper) and
// without it (optr itself, a subreaper). Built without the subreapers,
// optr leaves both running, so the test can fail.
func TestNothingOutlivesTheRun(t *testing.T) {
	for _, mode := range []string{"auto", "off"} {
		for _, reaper := range []bool{true, false} {
			name := mode + "/subreaper"
			if !reaper {
				name = mode + "/no-subreaper"
			}
			t.Run(name, func(t *testing.T) {
				bin := optrBin
				if !reaper {
					var err error
					if bin, err = noSubreaperBin(); err != nil {
						t.Fatalf("build optr without the subreapers: %v", err)
					}
				}
				tag := "optr-e2e-orphan-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(name, "/", "-")
				t.Cleanup(func() {
					for _, pid := range proctest.Tagged(tag) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				dir := t.TempDir()
				ws, tools := filepath.Join(dir, "ws"), filepath.Join(dir, "tools")
				for _, d := range []string{ws, tools} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				_ = os.Chmod(dir, 0o755)
				script := filepath.Join(tools, "leaver.sh")
				cfg := "agents:\n  leaver: { provider: command, run: [sh, " + script + "], timeout: 60s }\n" +
					"sandbox: { mode: " + mode + ", read: [" + tools + "] }\n"
				for p, s := range map[string]string{script: strings.ReplaceAll(leaver, "TAG", tag), filepath.Join(ws, "optr.yml"): cfg} {
					if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				cmd := exec.Command(bin, "run", "--config", "optr.yml", "--workflow", "leaver", "--intent", "leave", "--interactive", "never")
				cmd.Dir = ws
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("optr run: %v\n%s", err, out)
				}
				left := proctest.Tagged(tag)
				if reaper && len(left) > 0 {
					t.Errorf("processes %v outlived optr run\n%s", left, out)
				}
				// Without the subreapers the unmarked process must be left,
				// or the test proves nothing. The forked one keeps optr's
				// marker, so the sweep for orphans of a dead optr
				// (procgroup.Reap) that other test binaries run at the same
				// time may have ended it already: it is not required.
				if !reaper && len(proctest.Tagged(tag+"-unmarked")) != 1 {
					t.Errorf("without the subreapers %v were left, want the unmarked one among them: the test proves nothing\n%s", left, out)
				}
			})
		}
	}
}
