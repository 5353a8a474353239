package launcher

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

// orphans is a program that leaves two processes behind, tagged with
// tag: one that left with setsid and an empty environment (no marker of
// optr's reaches it) and one from a double fork. It returns once both
// run. Each then waits in the shell itself, opening a FIFO no one
// writes: one that forked a sleep would, until the sleep is exec'd,
// have a child that carries the tag too.
func orphans(dir, tag string) string {
	return `cd ` + dir + `
mkfifo hold
setsid env -i sh -c 'echo > a; read x < hold' ` + tag + ` </dev/null >/dev/null 2>&1 &
( sh -c 'echo > b; read x < hold' ` + tag + ` </dev/null >/dev/null 2>&1 & )
while [ ! -f a ] || [ ! -f b ]; do sleep 0.01; done
echo started
`
}

// Nothing the program starts outlives it: when it exits, the launcher
// (a child subreaper) kills what it left — a setsid child with an empty
// environment and a double fork — before it exits itself.
func TestNothingOutlivesTheProgram(t *testing.T) {
	tag := "optr-launcher-orphan-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		for _, pid := range proctest.Tagged(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	out, err := run(t, orphans(t.TempDir(), tag), Spec{}, Process{UID: -1})
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("%v: %q", err, out)
	}
	if left := proctest.Tagged(tag); len(left) > 0 {
		t.Errorf("processes %v outlived the program", left)
	}
	// Started directly (no launcher) and ended with its process group, the
	// same program leaves the setsid child behind, so the test can fail.
	cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", orphans(t.TempDir(), tag))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	killGroup(t, cmd.Process.Pid, tag) // what a process group reaches
	if left := proctest.Tagged(tag); len(left) != 1 {
		t.Errorf("without the launcher %v were left, want the setsid child", left)
	}
}

// killGroup kills process group pgid and waits until its processes
// tagged with tag have died: a SIGKILL takes effect asynchronously.
func killGroup(t *testing.T, pgid int, tag string) {
	t.Helper()
	var fds []int
	for _, pid := range proctest.Tagged(tag) {
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				fds = append(fds, fd)
			}
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for _, fd := range fds {
		// A pidfd turns readable when its process has ended.
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(pfd, -1); !errors.Is(err, unix.EINTR) {
				break
			}
		}
		unix.Close(fd)
	}
}

// The launcher leaves with the program's status: its exit status, or the
// signal that ended it.
func TestTheProgramsStatusIsTheLaunchers(t *testing.T) {
	for script, want := range map[string]string{
		"exit 3":          "exit status 3",
		"kill -TERM $$":   "signal: terminated",
		"kill -KILL $$":   "signal: killed",
		"kill -SEGV $$":   "exit status 139",
		"sleep 0; exit 0": "",
	} {
		cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if _, err := launch(t, Wrap, cmd, Spec{}, Process{UID: -1}); err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := cmd.Wait(); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: the launcher ended with %q, want %q", script, got, want)
		}
	}
}
