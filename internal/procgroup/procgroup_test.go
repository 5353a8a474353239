//go:build unix

package procgroup

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

// A grandchild in the background must not outlive its command, whether the
// command is cancelled or simply finishes first.
func TestGroupLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	for _, cancel := range []bool{true, false} {
		pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
		ctx, stop := context.WithCancel(t.Context())
		// The grandchild would run for five minutes: that it is gone
		// within WaitGone's bound says it was killed, however slow the
		// machine (a survivor that wrote a marker after half a second
		// raced the kill on a loaded runner).
		script := "sleep 300 & echo $! > " + pidFile + "; echo started; "
		if cancel {
			script += "sleep 30"
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		g := New(cmd, 200*time.Millisecond)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The grandchild runs and its id is written once the shell says so.
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
			t.Fatalf("cancel=%v: the script said %q (%v)", cancel, line, err)
		}
		if cancel {
			stop()
		}
		start := time.Now()
		_ = cmd.Wait()
		g.Finish()
		stop()
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("cancel=%v: Wait took %s", cancel, took)
		}
		proctest.WaitGone(t, proctest.PID(t, pidFile), time.Minute)
	}
}

func TestFinishBeforeStart(t *testing.T) {
	t.Parallel()
	g := New(exec.Command("/nonexistent/program"), time.Second)
	g.Finish() // must not panic on a command that never started
}

// New never writes into the spare capacity of the Env slice it was given:
// callers share one environment between commands run at once (a command
// check evaluated for several agents), and each command's owner variable
// landed in the same shared slot (a data race under -race).
func TestNewLeavesTheCallersEnvAlone(t *testing.T) {
	t.Parallel()
	shared := make([]string, 1, 2)
	shared[0] = "A=1"
	spare := shared[:2]
	spare[1] = "untouched"
	cmd := exec.Command("true")
	cmd.Env = shared
	New(cmd, time.Second).Finish()
	if spare[1] != "untouched" {
		t.Errorf("New wrote %q into the caller's slice", spare[1])
	}
	if n := len(cmd.Env); n != 2 || cmd.Env[0] != "A=1" {
		t.Errorf("cmd.Env = %q", cmd.Env)
	}
}
