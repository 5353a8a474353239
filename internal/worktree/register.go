package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// register makes dir (which must not exist) a linked worktree of the
// repository, detached at base, with no files and no index yet: what git
// worktree add --no-checkout does, written directly (the layout of
// gitrepository-layout(5): $GIT_COMMON_DIR/worktrees/<id>/ with gitdir,
// commondir and HEAD; <dir>/.git pointing back). The registration is
// locked while it is incomplete, as git does, so that a git worktree prune
// running meanwhile leaves it alone; call the returned unlock once the
// tree is complete. It returns the worktree's private git directory and
// the content of its .git file.
func (r *Run) register(dir string) (gitDir string, gitRef []byte, unlock func() error, err error) {
	parent := filepath.Join(r.commonDir, "worktrees")
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return "", nil, nil, err
	}
	// Both paths as git writes them: absolute, symlinks resolved.
	if parent, err = filepath.EvalSymlinks(parent); err != nil {
		return "", nil, nil, err
	}
	realDir, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return "", nil, nil, err
	}
	realDir = filepath.Join(realDir, filepath.Base(dir))
	name := filepath.Base(dir)
	for i := 0; ; i++ {
		gitDir = filepath.Join(parent, name)
		if i > 0 {
			gitDir += strconv.Itoa(i)
		}
		err = os.Mkdir(gitDir, 0o777)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i == 1000 {
			return "", nil, nil, fmt.Errorf("register the worktree: %w", err)
		}
	}
	locked := filepath.Join(gitDir, "locked")
	files := []struct{ path, content string }{
		{locked, "initializing\n"},
		{filepath.Join(gitDir, "commondir"), "../..\n"},
		{filepath.Join(gitDir, "HEAD"), r.base + "\n"},
		{filepath.Join(gitDir, "gitdir"), filepath.Join(realDir, ".git") + "\n"},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, []byte(f.content), 0o666); err != nil {
			os.RemoveAll(gitDir)
			return "", nil, nil, fmt.Errorf("register the worktree: %w", err)
		}
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		os.RemoveAll(gitDir)
		return "", nil, nil, fmt.Errorf("register the worktree: %w", err)
	}
	gitRef = []byte("gitdir: " + gitDir + "\n")
	if err := os.WriteFile(filepath.Join(dir, ".git"), gitRef, 0o666); err != nil {
		return gitDir, nil, nil, fmt.Errorf("register the worktree: %w", err)
	}
	return gitDir, gitRef, func() error { return os.Remove(locked) }, nil
}
