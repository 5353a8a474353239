//go:build unix

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLockExcludes: while Lock holds the file, no one else can lock it;
// once released, Lock takes it again.
func TestLockExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("another lock while Lock holds the file: %v, want EWOULDBLOCK", err)
	}
	unlock()
	again, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	again()
}
