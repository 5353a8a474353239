package proctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PID reads a process id that a script wrote to file (echo $! > file).
func PID(tb testing.TB, file string) int {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatalf("read the process id: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		tb.Fatalf("%s holds %q, not a process id", file, b)
	}
	return pid
}

// WaitGone returns once process pid has ended (exited or killed; a zombie
// nobody reaped yet counts as ended), and fails the test when it still
// runs after within.
func WaitGone(tb testing.TB, pid int, within time.Duration) {
	tb.Helper()
	if err := waitGone(pid, within); err != nil {
		tb.Fatalf("process %d: %v", pid, err)
	}
}
