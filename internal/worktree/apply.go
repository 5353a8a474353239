package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNotApplicable marks a patch that does not apply to the tree it was
// given: the base moved under it. Nothing was changed.
var ErrNotApplicable = errors.New("the patch does not apply")

// File is a file a patch yields: its content and mode after the patch, or
// Delete. It is also how Rebase receives the files the patch reads.
type File struct {
	// Path is repository-relative and slash-separated.
	Path string
	// Mode is 100644, 100755 or 120000 (a symlink, whose Content is its
	// target).
	Mode    string
	Content []byte
	// Delete is true when the patch deletes Path.
	Delete bool
}

// PatchPaths returns the repository paths patch touches, in order, after
// checking that each is a clean relative path outside .git/ without "..".
// A rename or copy touches two paths, and both are listed: git apply
// --numstat names only a file's new name, so the patch is read a second
// time reversed (-R), where the old name is the new one. Without it, a
// patch that renamed .github/workflows/ci.yml listed only where it went.
func PatchPaths(ctx context.Context, gitBin string, patch []byte) ([]string, error) {
	if len(bytes.TrimSpace(patch)) == 0 {
		return nil, errors.New("the patch is empty: there is nothing to apply")
	}
	g := gitCmd{bin: gitOr(gitBin)}
	scratch, err := os.MkdirTemp("", "optr-patch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	var paths []string
	seen := map[string]bool{}
	for _, args := range [][]string{{"apply", "--numstat", "-z", "-"}, {"apply", "-R", "--numstat", "-z", "-"}} {
		out, err := g.run(ctx, scratch, patch, args...)
		if err != nil {
			return nil, fmt.Errorf("read the patch: %w", err)
		}
		for _, rec := range splitZ(out) {
			parts := strings.SplitN(rec, "\t", 3)
			if len(parts) != 3 {
				return nil, fmt.Errorf("read the patch: git apply --numstat answered %q", rec)
			}
			if reason := badPath(parts[2]); reason != "" {
				return nil, fmt.Errorf("the patch is refused: %s", reason)
			}
			if !seen[parts[2]] {
				seen[parts[2]] = true
				paths = append(paths, parts[2])
			}
		}
	}
	if len(paths) == 0 {
		return nil, errors.New("the patch touches no file: there is nothing to apply")
	}
	return paths, nil
}

// Apply applies patch to the working tree and index of the repository
// that holds workspace (git apply --index), touching only the files the
// patch names. git apply checks every file before it writes one, so a
// patch that does not apply changes nothing: the error then wraps
// ErrNotApplicable, with git's reason. The workspace's index is read
// once.
func Apply(ctx context.Context, gitBin, workspace string, patch []byte) error {
	if _, err := PatchPaths(ctx, gitBin, patch); err != nil {
		return fmt.Errorf("apply the change: %w", err)
	}
	g := gitCmd{bin: gitOr(gitBin)}
	top, _, err := repository(ctx, g, workspace)
	if err != nil {
		return err
	}
	if _, err := g.run(ctx, top, patch, "apply", "--index", "-"); err != nil {
		return fmt.Errorf("apply the change to %s: %w: %w", top, ErrNotApplicable, err)
	}
	return nil
}

// Rebase computes what patch makes of the files pre: the files at another
// commit (typically the base branch's tip, read through the API) for
// every path PatchPaths lists that exists there. It applies the patch in a
// scratch repository with git apply --cached, never touching the
// workspace, and returns one File per touched path, in path order. When
// the patch does not apply there (the base moved), the error wraps
// ErrNotApplicable.
func Rebase(ctx context.Context, gitBin string, patch []byte, pre []File) ([]File, error) {
	paths, err := PatchPaths(ctx, gitBin, patch)
	if err != nil {
		return nil, err
	}
	g := gitCmd{bin: gitOr(gitBin)}
	scratch, err := os.MkdirTemp("", "optr-rebase-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	repo, src := filepath.Join(scratch, "repo"), filepath.Join(scratch, "src")
	if err := os.Mkdir(src, 0o700); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, scratch, nil, "init", "--quiet", repo); err != nil {
		return nil, fmt.Errorf("rebase the change: %w", err)
	}
	g = g.with("GIT_DIR="+filepath.Join(repo, ".git"), "GIT_WORK_TREE="+repo)

	// The pre-images go into the index without git reading them as
	// working files: no filters, attributes or symlinks apply.
	var list []byte
	for i, f := range pre {
		if reason := badPath(f.Path); reason != "" {
			return nil, fmt.Errorf("rebase the change: %s", reason)
		}
		name := filepath.Join(src, fmt.Sprint(i))
		if err := os.WriteFile(name, f.Content, 0o600); err != nil {
			return nil, err
		}
		list = append(list, name+"\n"...)
	}
	if len(pre) > 0 {
		out, err := g.run(ctx, repo, list, "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return nil, fmt.Errorf("rebase the change: %w", err)
		}
		shas := strings.Fields(string(out))
		if len(shas) != len(pre) {
			return nil, fmt.Errorf("rebase the change: git hash-object answered %d ids for %d files", len(shas), len(pre))
		}
		var info []byte
		for i, f := range pre {
			mode := f.Mode
			if mode == "" {
				mode = "100644"
			}
			info = fmt.Appendf(info, "%s %s\t%s\x00", mode, shas[i], f.Path)
		}
		if _, err := g.run(ctx, repo, info, "update-index", "-z", "--index-info"); err != nil {
			return nil, fmt.Errorf("rebase the change: %w", err)
		}
	}
	if _, err := g.run(ctx, repo, patch, "apply", "--cached", "--check", "-"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotApplicable, err)
	}
	if _, err := g.run(ctx, repo, patch, "apply", "--cached", "-"); err != nil {
		return nil, fmt.Errorf("rebase the change: %w", err)
	}

	staged := map[string][2]string{} // path → mode, sha
	out, err := g.run(ctx, repo, nil, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, fmt.Errorf("rebase the change: %w", err)
	}
	for _, rec := range splitZ(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("rebase the change: git ls-files answered %q", rec)
		}
		staged[p] = [2]string{fields[0], fields[1]}
	}
	sort.Strings(paths)
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		st, ok := staged[p]
		if !ok {
			files = append(files, File{Path: p, Delete: true})
			continue
		}
		content, err := g.run(ctx, repo, nil, "cat-file", "blob", st[1])
		if err != nil {
			return nil, fmt.Errorf("rebase the change: %w", err)
		}
		files = append(files, File{Path: p, Mode: st[0], Content: content})
	}
	return files, nil
}

func gitOr(bin string) string {
	if bin == "" {
		return "git"
	}
	return bin
}

// Apply applies patch to the tree's files and index, checked first and
// never partially (as Apply does to a workspace, with the isolated git
// every command on a tree runs), and gives what it wrote to the run's
// Owner, as the tree's own files are: a check run in the tree as the
// sandbox's user (a matrix gather running π*'s command checks again on
// its change) can write where the agent could.
func (t *Tree) Apply(ctx context.Context, patch []byte) error {
	paths, err := PatchPaths(ctx, t.run.git.bin, patch)
	if err != nil {
		return fmt.Errorf("apply the change: %w", err)
	}
	gitDir := filepath.Join(t.dir, ".git")
	g := t.run.git.isolate().with("GIT_DIR="+gitDir, "GIT_WORK_TREE="+t.dir)
	if _, err := g.run(ctx, t.dir, patch, "apply", "--index", "-"); err != nil {
		return fmt.Errorf("apply the change to %s: %w: %w", t.dir, ErrNotApplicable, err)
	}
	if t.run.owner == nil {
		return nil
	}
	owned := []string{filepath.Join(gitDir, "index")}
	for _, p := range paths {
		for d := p; d != "." && d != "/"; d = path.Dir(d) {
			full := filepath.Join(t.dir, filepath.FromSlash(d))
			if _, err := os.Lstat(full); err == nil { // a deleted file is gone
				owned = append(owned, full)
			}
		}
	}
	return chown(t.run.owner, owned...)
}
