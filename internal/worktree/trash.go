package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// trashDir is where, below a run's directory, removed worktrees wait to be
// deleted. Agent names never start with a dot, so it is no agent's tree.
const trashDir = ".trash"

// trash deletes removed worktrees in the background: a worktree is
// renamed into the run's trash at once (the rename is what makes it gone
// for git and for everyone else) and its files are deleted meanwhile,
// off the run's critical path. The run's directory and lock go last, so a
// process that dies while deleting leaves a run the next Start's Prune
// takes for dead and finishes.
type trash struct {
	mu   sync.Mutex
	n    int
	wg   sync.WaitGroup
	errs []error
	done chan struct{} // closed when the run's directory is gone
	// hold, when a test sets it, keeps every deletion from starting until
	// it is closed.
	hold chan struct{}
}

// discard renames dir into the trash below runDir and deletes it in the
// background. A dir that does not exist is nothing to do.
func (tr *trash) discard(runDir, dir string) error {
	tr.mu.Lock()
	tr.n++
	dst := filepath.Join(runDir, trashDir, fmt.Sprintf("%d-%s", tr.n, filepath.Base(dir)))
	tr.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(dir, dst); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	tr.wg.Go(func() {
		if tr.hold != nil {
			<-tr.hold
		}
		tr.record(os.RemoveAll(dst))
	})
	return nil
}

func (tr *trash) record(err error) {
	if err != nil {
		tr.mu.Lock()
		tr.errs = append(tr.errs, err)
		tr.mu.Unlock()
	}
}

// finish runs last once every discarded tree is deleted, in the
// background, then marks the trash done.
func (tr *trash) finish(last func() error) {
	tr.mu.Lock()
	tr.done = make(chan struct{})
	done := tr.done
	tr.mu.Unlock()
	go func() {
		tr.wg.Wait()
		tr.record(last())
		close(done)
	}()
}

// Wait blocks until the files of the worktrees Discard removed are
// deleted and returns what failed while deleting them; ctx ending stops
// the wait, not the deletion. Wait before Discard (or Close) returns at
// once.
func (r *Run) Wait(ctx context.Context) error {
	r.trash.mu.Lock()
	done := r.trash.done
	r.trash.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.trash.mu.Lock()
	defer r.trash.mu.Unlock()
	return errors.Join(r.trash.errs...)
}
