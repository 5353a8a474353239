//go:build !linux

package worktree

import "errors"

// canCopy reports whether worktrees can be written from a snapshot here:
// not on this system, where git makes every worktree.
const canCopy = false

func (s *snapshot) materialize(string) ([]statData, error) {
	return nil, errors.New("copying a worktree is not supported on this system")
}

func (s *snapshot) restamp(string) ([]statData, error) {
	return nil, errors.New("copying a worktree is not supported on this system")
}
