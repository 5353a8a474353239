//go:build !unix

package worktree

import (
	"fmt"
	"os"
	"time"
)

// staleAfter is how old a run's lock file must be before Prune takes the
// run for dead where file locks are not available.
const staleAfter = 24 * time.Hour

// runLock is a run's lock file. Without flock, a run is taken for dead
// once its lock file is older than staleAfter.
type runLock struct{ path string }

func acquire(path string) (*runLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Close()
	return &runLock{path: path}, nil
}

func tryDead(path string) (*runLock, bool) {
	fi, err := os.Stat(path)
	if err != nil || time.Since(fi.ModTime()) < staleAfter {
		return nil, false
	}
	return &runLock{path: path}, true
}

func (l *runLock) remove()  { _ = os.Remove(l.path) }
func (l *runLock) release() {}
