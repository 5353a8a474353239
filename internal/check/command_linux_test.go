//go:build linux

package check

import (
	"os"
	"strings"
	"testing"
	"time"
)

// waitGone fails the test unless process pid is gone (or a zombie nobody
// reaped yet, which holds no resources) within a few seconds.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return // gone
		}
		// The state follows the parenthesised command name.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s outlived the check's timeout: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
