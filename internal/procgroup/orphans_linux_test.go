package procgroup

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

// runLeaving runs a command that leaves a setsid child with an empty
// environment (no owner variable for Reap), and a double fork that
// setsids, and returns once it ended and its group was finished. Each
// waits in the shell itself, opening a FIFO no one writes: one that
// forked a sleep would, until the sleep is exec'd, have a child that
// carries the tag too.
func runLeaving(t *testing.T, tag string) {
	t.Helper()
	dir := t.TempDir()
	script := `cd ` + dir + `
mkfifo hold
setsid env -i sh -c 'echo > a; read x < hold' ` + tag + ` </dev/null >/dev/null 2>&1 &
( setsid sh -c 'echo > b; read x < hold' ` + tag + ` </dev/null >/dev/null 2>&1 & ) &
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
		for _, pid := range proctest.WithArg(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
	})
	runLeaving(t, tag)
	if left := proctest.WithArg(tag); len(left) > 0 {
		t.Errorf("processes %v outlived their group", left)
	}
	// With the sweep off, both are left: the test can fail.
	orphans.Lock()
	on := orphans.on
	orphans.on = false
	orphans.Unlock()
	defer func() { orphans.Lock(); orphans.on = on; orphans.Unlock() }()
	runLeaving(t, tag)
	if left := proctest.WithArg(tag); len(left) != 2 {
		t.Errorf("with the sweep off %v were left, want both", left)
	}
}
