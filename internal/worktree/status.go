package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// touched is a path of the tree that may differ from the base: a tracked
// entry whose stat data changed, a new file or a deleted entry.
type touched struct {
	path  string
	entry int    // the base entry's index, -1 for a new path
	mode  uint32 // the index mode git would give it (0: a FIFO, socket or device)
	size  int64
	gone  bool   // the entry was deleted
	dir   bool   // an untracked directory (path ends in a slash)
	oid   []byte // its content's object id, once hashed
}

// status finds what may have changed in the tree since it was written,
// without git reading the tree or its index: the stat data of every
// tracked entry is compared with what it was when written (stats, the
// data the agent's own index records too), and every path the base does
// not have is new unless the tree's .gitignore files (or info/exclude)
// ignore it, which git check-ignore --no-index decides. A tracked entry
// whose stat data changed may still hold the base's content; Capture
// hashes it to tell. The walk skips the tree's own .git and refuses
// (reason) any other .git, and never enters an ignored directory or a
// submodule.
func (t *Tree) status(ctx context.Context, g gitCmd, s *snapshot, stats []statData) (changed []touched, reason string, err error) {
	seen := make([]bool, len(s.entries))
	var fresh []touched // untracked files and directories, to be checked against the ignore rules
	var walk func(rel string) error
	walk = func(rel string) error {
		des, err := os.ReadDir(filepath.Join(t.dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		for _, de := range des {
			p := path.Join(rel, de.Name())
			if strings.EqualFold(de.Name(), ".git") {
				if p == ".git" && de.Name() == ".git" {
					continue // the agent's own repository
				}
				reason = fmt.Sprintf("the agent wrote %s: files under .git/ (a repository inside the repository) are never part of a change", p)
				return fs.SkipAll
			}
			i, tracked := s.byPath[p]
			switch {
			case de.IsDir() && tracked && s.entries[i].mode == 0o160000:
				seen[i] = true // a submodule: git does not look inside
			case de.IsDir() && s.tracked[p]:
				if err := walk(p); err != nil {
					return err
				}
			case de.IsDir():
				fresh = append(fresh, touched{path: p + "/", entry: -1, dir: true})
			case tracked:
				seen[i] = true
				cur, mode, size, err := lstatEntry(filepath.Join(t.dir, filepath.FromSlash(p)))
				if err != nil {
					return err
				}
				if cur != stats[i] || mode != s.entries[i].mode {
					changed = append(changed, touched{path: p, entry: i, mode: mode, size: size})
				}
			case de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0:
				fi, err := de.Info()
				if err != nil {
					return err
				}
				fresh = append(fresh, touchedOf(p, fi))
			}
			if reason != "" {
				return fs.SkipAll
			}
		}
		return nil
	}
	if err := walk(""); err != nil && err != fs.SkipAll {
		return nil, "", fmt.Errorf("read the tree: %w", err)
	}
	if reason != "" {
		return nil, reason, nil
	}
	for i, e := range s.entries {
		if !seen[i] {
			if e.mode == 0o160000 {
				return nil, fmt.Sprintf("%s is a submodule: submodule changes are refused", e.path), nil
			}
			changed = append(changed, touched{path: e.path, entry: i, gone: true})
		}
	}
	added, reason, err := t.untracked(ctx, g, fresh)
	if err != nil || reason != "" {
		return nil, reason, err
	}
	return append(changed, added...), "", nil
}

// untracked keeps the paths of fresh that the tree's ignore rules do not
// exclude, entering each directory that is not excluded (everything below
// it is new too) until only files are left.
func (t *Tree) untracked(ctx context.Context, g gitCmd, fresh []touched) (added []touched, reason string, err error) {
	for len(fresh) > 0 {
		ignored, err := t.ignored(ctx, g, fresh)
		if err != nil {
			return nil, "", err
		}
		var next []touched
		for _, f := range fresh {
			switch {
			case ignored[f.path]:
			case f.dir:
				err := filepath.WalkDir(filepath.Join(t.dir, filepath.FromSlash(f.path)), func(abs string, de fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					rel, _ := filepath.Rel(t.dir, abs)
					p := filepath.ToSlash(rel)
					switch {
					case strings.EqualFold(de.Name(), ".git"):
						reason = fmt.Sprintf("the agent wrote %s: files under .git/ (a repository inside the repository) are never part of a change", p)
						return fs.SkipAll
					case de.IsDir() && p+"/" == f.path:
					case de.IsDir():
						next = append(next, touched{path: p + "/", entry: -1, dir: true})
						return fs.SkipDir
					case de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0:
						fi, err := de.Info()
						if err != nil {
							return err
						}
						next = append(next, touchedOf(p, fi))
					}
					return nil
				})
				if err != nil {
					return nil, "", fmt.Errorf("read the tree: %w", err)
				}
				if reason != "" {
					return nil, reason, nil
				}
			default:
				added = append(added, f)
			}
		}
		fresh = next
	}
	return added, "", nil
}

// ignored asks git check-ignore which of fresh the tree's ignore rules
// exclude (a directory by its path with a trailing slash). It reads no
// index.
func (t *Tree) ignored(ctx context.Context, g gitCmd, fresh []touched) (map[string]bool, error) {
	var in bytes.Buffer
	for _, f := range fresh {
		in.WriteString(f.path)
		in.WriteByte(0)
	}
	cmd := g.command(ctx, t.dir, "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && out.Len() == 0 {
		err = nil // nothing is ignored
	}
	if err != nil {
		return nil, g.failed("check-ignore", err, stderr.String())
	}
	ignored := map[string]bool{}
	for _, p := range splitZ(out.Bytes()) {
		ignored[p] = true
	}
	return ignored, nil
}

// touchedOf describes the new path p as fi.
func touchedOf(p string, fi fs.FileInfo) touched {
	return touched{path: p, entry: -1, mode: modeOf(fi), size: fi.Size()}
}

// modeOf is the index mode git gives fi, 0 for what git does not record.
func modeOf(fi fs.FileInfo) uint32 {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0o120000
	case fi.IsDir():
		return 0o160000
	case !fi.Mode().IsRegular():
		return 0
	case fi.Mode().Perm()&0o100 != 0:
		return 0o100755
	default:
		return 0o100644
	}
}
