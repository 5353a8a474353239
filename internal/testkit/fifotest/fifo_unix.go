//go:build unix

package fifotest

import (
	"syscall"
	"testing"
)

// Make makes a named pipe at path, failing the test when it cannot.
func Make(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("make a FIFO at %s: %v", path, err)
	}
}
