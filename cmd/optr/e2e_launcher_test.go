//go:build linux

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// witness is a command agent that waits, on a FIFO the test opens, until
// the test has looked at its parent process.
const witness = `cat >/dev/null
read -r _ < "$1"
echo witness done
`

// withWitness adds the witness agent to h's config; the test opens the
// FIFO it returns once it has seen the witness's parent.
func (h *hostile) withWitness(t *testing.T) (fifo, script string) {
	t.Helper()
	fifo = filepath.Join(h.mark, "witness.fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(fifo, 0o666) // whoever the agent runs as reads it
	script = filepath.Join(h.mark, "witness.sh")
	if err := os.WriteFile(script, []byte(witness), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(h.ws, ".github", "optr.yml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	agent := "agents:\n  witness:\n    provider: command\n    run: [sh, " + script + ", " + fifo + "]\n    timeout: 30s\n"
	if err := os.WriteFile(cfgPath, bytes.Replace(cfg, []byte("agents:\n"), []byte(agent), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCommitAll(t, h.ws)
	return fifo, script
}

func gitCommitAll(t *testing.T, ws string) {
	t.Helper()
	cmd := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "witness")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
}

// runWatched runs bin as runCLI does and returns its output and the
// executable of the witness's parent, read from /proc while the witness
// waits on its FIFO ("" when the witness never ran).
func (h *hostile) runWatched(t *testing.T, home, bin, fifo, script string) (log, parentExe string) {
	t.Helper()
	cmd := h.start(t, home, bin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	w, exited := startAwaiting(t, cmd, fifo)
	if w != nil {
		parentExe = parentOf(t, script)
		w.WriteString("go\n")
		w.Close()
		<-exited
	}
	return out.String(), parentExe
}

// startAwaiting starts cmd and waits until a process it starts opens
// fifo to read, and so runs: w is then the FIFO's open write end. When cmd
// ends first, w is nil (the blocked open released). exited has cmd.Wait's
// result.
func startAwaiting(t *testing.T, cmd *exec.Cmd, fifo string) (w *os.File, exited <-chan error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	select {
	case f := <-opened:
		return f, done
	case err := <-done:
		// Nothing read it: a reader releases the blocked open.
		if r, rerr := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); rerr == nil {
			if f := <-opened; f != nil {
				f.Close()
			}
			r.Close()
		}
		ended := make(chan error, 1)
		ended <- err
		return nil, ended
	}
}

// parentOf is the executable of the parent of the process running sh
// script.
func parentOf(t *testing.T, script string) string {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(string(b), "sh\x00"+script+"\x00") {
			continue
		}
		status, err := os.Open(filepath.Join(filepath.Dir(p), "status"))
		if err != nil {
			continue
		}
		defer status.Close()
		sc := bufio.NewScanner(status)
		for sc.Scan() {
			if ppid, ok := strings.CutPrefix(sc.Text(), "PPid:"); ok {
				pid, _ := strconv.Atoi(strings.TrimSpace(ppid))
				exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
				if err != nil {
					t.Fatalf("the witness's parent %d: %v", pid, err)
				}
				return exe
			}
		}
	}
	t.Fatalf("no process runs %s", script)
	return ""
}

// TestSeparateLauncherConfinesTheAgent: with optr-sandbox-launcher beside
// optr, the adversary's agents and checks are started by it — the
// witness's parent is that file, not optr — and it confines them: the
// adversary gets nothing, while with the sandbox off it gets what it
// wants (optr starts the agents itself). optr alone in a directory
// starts itself as the launcher, with the same confinement.
func TestSeparateLauncherConfinesTheAgent(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "optr")
	copyFile(t, optrBin, alone)
	for _, tc := range []struct {
		name, bin, mode, parent string
	}{
		{"separate/auto", optrBin, "auto", launcherBin},
		{"separate/off", optrBin, "off", optrBin},
		{"alone/auto", alone, "auto", alone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "workspace")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			h := newHostile(t, dir, ws, tc.mode)
			fifo, script := h.withWitness(t)
			log, parent := h.runWatched(t, dir, tc.bin, fifo, script)
			if parent != tc.parent {
				t.Errorf("the agent's parent is %q, want %s\n%s", parent, tc.parent, log)
			}
			leaks := h.leaks(t)
			if tc.mode == "off" {
				if !slices.Contains(leaks, "env") || !slices.Contains(leaks, "outside-write") {
					t.Errorf("with the sandbox off the adversary should get env and outside-write; it got %v\n%s", leaks, log)
				}
				return
			}
			if len(leaks) > 0 {
				t.Errorf("the adversary got through: %v\n%s", leaks, log)
			}
		})
	}
}

// TestLauncherOfAnotherBuildStopsTheRun: a launcher beside optr from
// another build is never used: the run stops before any agent starts,
// with an error that names both files.
func TestLauncherOfAnotherBuildStopsTheRun(t *testing.T) {
	bin := t.TempDir()
	optr := filepath.Join(bin, "optr")
	copyFile(t, optrBin, optr)
	other := filepath.Join(bin, "optr-sandbox-launcher")
	build := exec.Command("go", "build", "-tags", "optr_other_build", "-o", other, "../optr-sandbox-launcher")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build a launcher of another build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHostile(t, dir, ws, "auto")
	fifo, script := h.withWitness(t)
	log, parent := h.runWatched(t, dir, optr, fifo, script)
	if parent != "" {
		t.Errorf("an agent ran (below %s) with a launcher of another build\n%s", parent, log)
	}
	for _, want := range []string{other, optr, "another build"} {
		if !strings.Contains(log, want) {
			t.Errorf("the run's error does not name %q:\n%s", want, log)
		}
	}
	if leaks := h.leaks(t); len(leaks) > 0 {
		t.Errorf("the adversary ran: %v\n%s", leaks, log)
	}
}

// copyFile copies the executable src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
