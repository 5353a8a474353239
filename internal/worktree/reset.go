package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Reset puts the worktree back to Base, as Add left it: tracked files
// restored, everything else (untracked, ignored, nested repositories)
// removed. Call it before an agent is restarted in its worktree, so the
// new launch does not inherit a failed one's half-made change.
func (t *Tree) Reset(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removed {
		return fmt.Errorf("reset the worktree of %s: it was removed", t.agent)
	}
	if err := os.RemoveAll(filepath.Join(t.dir, ".git")); err != nil {
		return fmt.Errorf("reset the worktree of %s: %w", t.agent, err)
	}
	if err := os.WriteFile(filepath.Join(t.dir, ".git"), t.gitRef, 0o644); err != nil {
		return fmt.Errorf("reset the worktree of %s: %w", t.agent, err)
	}
	g := t.run.git.with("GIT_DIR="+t.gitDir, "GIT_WORK_TREE="+t.dir)
	for _, args := range [][]string{
		{"update-ref", "--no-deref", "HEAD", t.run.base},
		{"reset", "--quiet", "--hard", t.run.base},
		{"clean", "-ffdxq"},
	} {
		if _, err := g.run(ctx, t.dir, nil, args...); err != nil {
			return fmt.Errorf("reset the worktree of %s: %w", t.agent, err)
		}
	}
	return nil
}
