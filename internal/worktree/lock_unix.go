//go:build unix

package worktree

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// runLock is an exclusive flock on a run's lock file, held while the run
// lives. The kernel drops it when the process dies, however it dies, which
// is how Prune tells a dead run from a live one.
type runLock struct {
	f    *os.File
	path string
}

// acquire creates and locks path. It fails when another live process holds
// it.
func acquire(path string) (*runLock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%s is held by a running optr: run ids must be unique", path)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// A pruner may have removed the file between open and lock: the
		// lock only counts if path is still the file that was locked.
		if same(f, path) {
			return &runLock{f: f, path: path}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: it keeps being replaced", path)
}

// tryDead locks path when no live process holds it, which means the run
// it belongs to is over. ok is false when the run is alive or the file is
// gone.
func tryDead(path string) (l *runLock, ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !same(f, path) {
		f.Close()
		return nil, false
	}
	return &runLock{f: f, path: path}, true
}

func same(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// remove deletes the lock file, then releases the lock.
func (l *runLock) remove() {
	_ = os.Remove(l.path)
	l.release()
}

func (l *runLock) release() { _ = l.f.Close() }
