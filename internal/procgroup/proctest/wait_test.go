package proctest

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A grandchild that sleeps briefly is waited for until it ends; one that
// outlives the wait fails it.
func TestWaitGone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The shell exits at once; its background child lives on, reparented.
	if out, err := exec.Command("sh", "-c", `sleep 0.2 >/dev/null 2>&1 & echo $! > "$1"`, "sh", pidFile).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	start := time.Now()
	WaitGone(t, PID(t, pidFile), 10*time.Second)
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("WaitGone returned after %s, before the child's sleep ended", took)
	}

	long := exec.Command("sleep", "30")
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { long.Process.Kill(); long.Wait() })
	if err := waitGone(long.Process.Pid, 50*time.Millisecond); err == nil {
		t.Error("waitGone reported a running process gone")
	}
}
