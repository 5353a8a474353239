package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// taggedProcs lists the processes that have tag as one whole argument:
// the leavers (sh -c '…' tag), not the script that starts them, whose
// text holds the tag too, nor a subshell forked from that script, which
// may still be ending when the script returns.
func taggedProcs(tag string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && slices.Contains(strings.Split(string(b), "\x00"), tag) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// runLeaving runs a command that leaves a setsid child with an empty
// environment (no owner variable for Reap), and a double fork that
// setsids, and returns once it ended and its group was finished.
func runLeaving(t *testing.T, tag string) {
	t.Helper()
	dir := t.TempDir()
	script := `cd ` + dir + `
setsid env -i sh -c 'echo > a; sleep 300; :' ` + tag + ` </dev/null >/dev/null 2>&1 &
( setsid sh -c 'echo > b; sleep 300; :' ` + tag + ` </dev/null >/dev/null 2>&1 & ) &
while [ ! -f a ] || [ ! -f b ]; do sleep 0.01; done
`
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	g := New(cmd, time.Second)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	g.Finish()
}

// When the last group ends, what its command left outside the group —
// reparented to optr, a child subreaper — is ended too.
func TestNothingOutlivesTheLastGroup(t *testing.T) {
	tag := "optr-procgroup-orphan-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		for _, pid := range taggedProcs(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
	})
	runLeaving(t, tag)
	if left := taggedProcs(tag); len(left) > 0 {
		t.Errorf("processes %v outlived their group", left)
	}
	// With the sweep off, both are left: the test can fail.
	orphans.Lock()
	on := orphans.on
	orphans.on = false
	orphans.Unlock()
	defer func() { orphans.Lock(); orphans.on = on; orphans.Unlock() }()
	runLeaving(t, tag)
	if left := taggedProcs(tag); len(left) != 2 {
		t.Errorf("with the sweep off %v were left, want both", left)
	}
}
