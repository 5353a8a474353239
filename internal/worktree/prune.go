package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lockSuffix names a run's lock file beside its directory under Root.
const lockSuffix = ".lock"

// prune removes what runs that ended without Close left under root: the
// directory of every run whose lock no live process holds (an optr that
// was killed). It returns the run directories it removed. Start calls it;
// a live run is never touched.
func prune(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("prune worktrees: %w", err)
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, lockSuffix) {
			if _, err := os.Lstat(filepath.Join(root, strings.TrimSuffix(name, lockSuffix))); os.IsNotExist(err) {
				// A lock without its directory: a run that died while
				// starting or closing.
				if l, ok := tryDead(filepath.Join(root, name)); ok {
					l.remove()
				}
			}
			continue
		}
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, name)
		l, ok := tryDead(dir + lockSuffix)
		if !ok {
			if _, err := os.Lstat(dir + lockSuffix); !os.IsNotExist(err) {
				continue // alive, or not ours to judge
			}
			// No lock file at all: a run always locks before it creates
			// its directory, so this one is over.
		}
		if err := os.RemoveAll(dir); err != nil {
			if l != nil {
				l.release()
			}
			return removed, fmt.Errorf("prune worktrees: %w", err)
		}
		if l != nil {
			l.remove()
		}
		removed = append(removed, dir)
	}
	return removed, nil
}
