package worktree

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
)

// Uncommitted returns those of paths (relative to dir, as an agent's
// command names its script) that are files in dir but not in the commit
// the run's worktrees start from: an agent working in its worktree would
// not find them. Paths that are no file in dir (options, words of a
// shell command) or lie outside the repository are not considered.
func (r *Run) Uncommitted(ctx context.Context, dir string, paths []string) ([]string, error) {
	var cands, rels []string
	for _, p := range paths {
		if p == "" || filepath.IsAbs(p) {
			continue
		}
		abs, err := filepath.EvalSymlinks(filepath.Join(dir, p))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		rel, err := filepath.Rel(r.workspace, abs)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		cands, rels = append(cands, p), append(rels, filepath.ToSlash(rel))
	}
	if len(cands) == 0 {
		return nil, nil
	}
	out, err := r.git.run(ctx, r.workspace, nil, append([]string{"ls-tree", "-z", "--full-tree", "--name-only", r.base, "--"}, rels...)...)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for name := range bytes.SplitSeq(out, []byte{0}) {
		in[string(name)] = true
	}
	var missing []string
	for i, rel := range rels {
		if !in[rel] {
			missing = append(missing, cands[i])
		}
	}
	return missing, nil
}

// Tracked returns the number of files tracked at the commit the run's
// worktrees start from (counted once): the base of the default bound on
// the files a change may delete (Policy.Tracked).
func (r *Run) Tracked(ctx context.Context) (int, error) {
	r.trackedOnce.Do(func() {
		out, err := r.git.run(ctx, r.workspace, nil, "ls-tree", "-r", "-z", "--name-only", r.base)
		r.tracked, r.trackedErr = bytes.Count(out, []byte{0}), err
	})
	return r.tracked, r.trackedErr
}
