//go:build unix

package ledger

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an advisory flock on f, exclusive or shared, waiting for
// it. flock locks belong to the open file, so two goroutines of one process
// that open the ledger separately exclude each other as two processes do.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlockFile releases the lock taken by lockFile.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
