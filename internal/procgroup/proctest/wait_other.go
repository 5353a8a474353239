//go:build !linux

package proctest

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// waitGone has no pidfd to wait on outside Linux: it asks whether pid
// still exists (signal 0) until it does not. An orphan is reaped by init
// there, so an ended process does not linger as a zombie.
func waitGone(pid int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 50*time.Millisecond) {
		p, _ := os.FindProcess(pid)
		if err := p.Signal(syscall.Signal(0)); errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still runs after %s", within)
		}
		time.Sleep(backoff)
	}
}
