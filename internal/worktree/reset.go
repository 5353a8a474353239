package worktree

import (
	"context"
	"fmt"
)

// Reset puts the tree back to Base, as Add left it: the agent's files,
// its repository and everything else it left are taken away (deleted in
// the background, as Remove does) and the tree is written again. Call it
// before an agent is restarted in its tree, so the new launch does not
// inherit a failed one's half-made change.
func (t *Tree) Reset(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removed {
		return fmt.Errorf("reset the worktree of %s: it was removed", t.agent)
	}
	if err := t.run.trash.discard(t.run.dir, t.dir); err != nil {
		return fmt.Errorf("reset the worktree of %s: %w", t.agent, err)
	}
	stats, err := t.run.makeTree(ctx, t.dir, t.agent)
	if err != nil {
		return fmt.Errorf("reset the worktree of %s: %w", t.agent, err)
	}
	t.stats, t.captured = stats, nil
	return nil
}
