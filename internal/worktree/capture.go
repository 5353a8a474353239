package worktree

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/optr-dev/optr/internal/redact"
)

// DefaultMaxFileBytes is the largest file a change may create or leave
// when Limits.MaxFileBytes is zero: 10 MiB, far above source code and far
// below GitHub's 100 MB blob limit.
const DefaultMaxFileBytes = 10 << 20

// Limits bound what Capture accepts.
type Limits struct {
	// MaxFileBytes is the largest file the change may create or modify
	// (0: DefaultMaxFileBytes).
	MaxFileBytes int64
	// Redactor, when set, refuses a change whose patch holds a secret value
	// it knows, or a fragment of one (redact.Redactor.Holds): an agent that wrote a key from its environment into a file
	// must not have it stored, committed or pushed. (Binary files are
	// encoded in the patch and not searched.)
	Redactor *redact.Redactor
}

// FileStat is one file a change touches.
type FileStat struct {
	// Path is the repository-relative, slash-separated path.
	Path string `json:"path"`
	// Status is A (added), M (modified), D (deleted) or T (type changed).
	Status string `json:"status"`
	// Mode is the file's mode after the change ("" when deleted): 100644,
	// 100755 or 120000 (a symlink).
	Mode string `json:"mode,omitempty"`
	// Added and Removed count lines; both are zero for a binary file.
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`
}

// Change is what an agent changed in its worktree, against the run's base
// commit.
type Change struct {
	// Base is the commit the change is relative to.
	Base string `json:"base"`
	// Patch is the change as git diff --binary --full-index output, ready
	// for git apply; empty when nothing changed or the change was refused.
	Patch []byte `json:"-"`
	// PatchSHA256 is the hex SHA-256 of Patch (the ledger's patch_sha256).
	PatchSHA256 string `json:"patch_sha256"`
	// Files are the files changed, in path order.
	Files []FileStat `json:"files"`
	// Added and Removed are the lines added and removed over all files.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Refused says why the change was refused as a whole (a huge file, a
	// symlink out of the worktree, a file under .git/, a submodule, a path
	// with ".."); Patch is then empty. Empty when the change was captured.
	Refused string `json:"refused,omitempty"`
}

// SHA256Hex returns the hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Capture records what the agent changed in the worktree since Base: edits
// to tracked files, new files (those .gitignore does not exclude) and
// deleted files, binary-safe, as one patch with per-file line counts. It
// checks the worktree before git reads any file, so a huge file is never
// hashed into the repository. Call it once the agent's processes are done
// and before checks run in the worktree (a check's build output must not
// become part of the change). A refused change comes back with Refused set
// and a nil error; the error is for git failing.
func (t *Tree) Capture(ctx context.Context, lim Limits) (ch Change, err error) {
	defer func() {
		if err == nil {
			t.mu.Lock()
			t.captured = &ch
			t.mu.Unlock()
		}
	}()
	if lim.MaxFileBytes <= 0 {
		lim.MaxFileBytes = DefaultMaxFileBytes
	}
	r := t.run
	ch = Change{Base: r.base, Files: []FileStat{}, PatchSHA256: SHA256Hex(nil)}
	refuse := func(format string, args ...any) (Change, error) {
		ch.Refused = fmt.Sprintf(format, args...)
		ch.Files = []FileStat{}
		ch.Added, ch.Removed = 0, 0
		return ch, nil
	}
	if reason := t.checkGitFiles(); reason != "" {
		return refuse("%s", reason)
	}
	// The worktree's own git directory and index, named explicitly: the
	// agent may have rewritten the .git file, and must not make git read
	// or write another repository.
	g := r.git.with("GIT_DIR="+t.gitDir, "GIT_WORK_TREE="+t.dir)
	if _, err := g.run(ctx, t.dir, nil, "update-ref", "--no-deref", "HEAD", r.base); err != nil {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	// GIT_OPTIONAL_LOCKS=0 (--no-optional-locks): status need not write
	// back the index it refreshed; update-index below writes it once.
	out, err := g.with("GIT_OPTIONAL_LOCKS=0").run(ctx, t.dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none")
	if err != nil {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	var changed bytes.Buffer
	for _, rec := range splitZ(out) {
		if len(rec) < 4 {
			continue
		}
		if reason := t.checkPath(rec[3:], lim); reason != "" {
			return refuse("%s", reason)
		}
		changed.WriteString(rec[3:])
		changed.WriteByte(0)
	}
	// Stage exactly the paths status reported, as git add --all would:
	// every other path is the same in the base, the index and the tree, so
	// git need not walk and refresh the whole tree a second time.
	if changed.Len() > 0 {
		if _, err := g.run(ctx, t.dir, changed.Bytes(), "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
			return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
		}
	}
	diff := []string{"diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", "--full-index", "--src-prefix=a/", "--dst-prefix=b/"}
	// One git diff for the file list, the line counts and the patch.
	out, err = g.run(ctx, t.dir, nil, append(diff, "--raw", "--numstat", "--binary", "-z", r.base)...)
	if err != nil {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	raw, num, patch, err := splitDiff(out)
	if err != nil {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	files, reason := parseRaw(raw)
	if reason != "" {
		return refuse("%s", reason)
	}
	if err := addNumstat(files, num); err != nil {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	if lim.Redactor.Holds(string(patch)) {
		return refuse("the change contains the value of a secret from the environment (or 8 bytes or more of one); it is never stored or pushed")
	}
	ch.Patch, ch.PatchSHA256, ch.Files = patch, SHA256Hex(patch), files
	for _, f := range files {
		ch.Added += f.Added
		ch.Removed += f.Removed
	}
	return ch, nil
}

// checkGitFiles refuses a worktree whose .git file was changed or that
// holds a .git entry anywhere else: git never records files under .git/,
// so an agent that wrote there would see its work silently dropped, or
// would be planting a repository inside the repository.
func (t *Tree) checkGitFiles() string {
	b, err := os.ReadFile(filepath.Join(t.dir, ".git"))
	if err != nil || !bytes.Equal(b, t.gitRef) {
		return "the agent changed the worktree's .git file; files under .git/ are never part of a change"
	}
	found := ""
	_ = filepath.WalkDir(t.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipDir
		}
		if p != t.dir && strings.EqualFold(d.Name(), ".git") && p != filepath.Join(t.dir, ".git") {
			rel, _ := filepath.Rel(t.dir, p)
			found = filepath.ToSlash(rel)
			return filepath.SkipAll
		}
		return nil
	})
	if found != "" {
		return fmt.Sprintf("the agent wrote %s: files under .git/ (a repository inside the repository) are never part of a change", found)
	}
	return ""
}

// checkPath looks at one path git status reported, before git reads it.
func (t *Tree) checkPath(rel string, lim Limits) string {
	if strings.HasSuffix(rel, "/") {
		return fmt.Sprintf("%s is a git repository inside the worktree: submodule changes are refused", rel)
	}
	if reason := badPath(rel); reason != "" {
		return reason
	}
	abs := filepath.Join(t.dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	switch {
	case os.IsNotExist(err), errors.Is(err, syscall.ENOTDIR):
		return "" // deleted, or a parent directory became a file
	case err != nil:
		return fmt.Sprintf("%s cannot be read: %v", rel, err)
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return fmt.Sprintf("%s is a symlink that cannot be read: %v", rel, err)
		}
		return symlinkEscapes(rel, target)
	case fi.IsDir():
		return fmt.Sprintf("%s is a directory where git expects a file or submodule: submodule changes are refused", rel)
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("%s is not a regular file (%s)", rel, fi.Mode().Type())
	case fi.Size() > lim.MaxFileBytes:
		return fmt.Sprintf("%s is %d bytes, more than the %d a changed file may have", rel, fi.Size(), lim.MaxFileBytes)
	}
	return ""
}

// symlinkEscapes refuses a symlink at rel whose target leaves the
// worktree or points into .git.
func symlinkEscapes(rel, target string) string {
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") || strings.Contains(target, "\\") {
		return fmt.Sprintf("%s is a symlink to %q, outside the worktree", rel, target)
	}
	depth := strings.Count(rel, "/")
	for _, seg := range strings.Split(target, "/") {
		switch seg {
		case "", ".":
		case "..":
			depth--
		default:
			if strings.EqualFold(seg, ".git") {
				return fmt.Sprintf("%s is a symlink to %q, into .git", rel, target)
			}
			depth++
		}
		if depth < 0 {
			return fmt.Sprintf("%s is a symlink to %q, outside the worktree", rel, target)
		}
	}
	return ""
}

// badPath refuses a repository path with a ".." or .git segment, or one
// that is absolute.
func badPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return fmt.Sprintf("path %q is not a clean repository-relative path", p)
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "..":
			return fmt.Sprintf("path %q contains \"..\"", p)
		case strings.EqualFold(seg, ".git"):
			return fmt.Sprintf("path %q is under .git/", p)
		case seg == "" || seg == ".":
			return fmt.Sprintf("path %q is not a clean repository-relative path", p)
		}
	}
	return ""
}

// splitDiff separates what git diff --raw --numstat --binary -z prints:
// raw records (":meta" NUL path NUL), numstat records ("added TAB removed
// TAB path" NUL), then, after one more NUL, the patch as git diff
// --binary alone prints it.
func splitDiff(out []byte) (raw, num, patch []byte, err error) {
	next := func(pos int) (int, error) {
		i := bytes.IndexByte(out[pos:], 0)
		if i < 0 {
			return 0, fmt.Errorf("git diff answered an unterminated record %q", out[pos:])
		}
		return pos + i + 1, nil
	}
	pos := 0
	for pos < len(out) && out[pos] == ':' {
		for range 2 { // the meta record and its path
			if pos, err = next(pos); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	rawEnd := pos
	for pos < len(out) && out[pos] != 0 {
		if pos, err = next(pos); err != nil {
			return nil, nil, nil, err
		}
	}
	raw, num = out[:rawEnd], out[rawEnd:pos]
	if pos < len(out) {
		patch = out[pos+1:]
	}
	return raw, num, patch, nil
}

// parseRaw reads git diff --raw -z (without renames): one record
// ":oldmode newmode oldsha newsha status" then the path. It refuses
// gitlinks (submodules) and unclean paths.
func parseRaw(out []byte) ([]FileStat, string) {
	recs := splitZ(out)
	files := []FileStat{}
	for i := 0; i+1 < len(recs); i += 2 {
		meta, p := strings.Fields(strings.TrimPrefix(recs[i], ":")), recs[i+1]
		if len(meta) != 5 {
			return nil, fmt.Sprintf("git diff --raw answered %q", recs[i])
		}
		if reason := badPath(p); reason != "" {
			return nil, reason
		}
		if meta[0] == "160000" || meta[1] == "160000" {
			return nil, fmt.Sprintf("%s is a submodule: submodule changes are refused", p)
		}
		f := FileStat{Path: p, Status: meta[4][:1]}
		if f.Status != "D" {
			f.Mode = meta[1]
		}
		files = append(files, f)
	}
	return files, ""
}

// addNumstat adds the line counts of git diff --numstat -z to files.
func addNumstat(files []FileStat, out []byte) error {
	byPath := make(map[string]*FileStat, len(files))
	for i := range files {
		byPath[files[i].Path] = &files[i]
	}
	for _, rec := range splitZ(out) {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return fmt.Errorf("git diff --numstat answered %q", rec)
		}
		f := byPath[parts[2]]
		if f == nil {
			continue
		}
		if parts[0] == "-" {
			f.Binary = true
			continue
		}
		a, err1 := strconv.Atoi(parts[0])
		d, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("git diff --numstat answered %q", rec)
		}
		f.Added, f.Removed = a, d
	}
	return nil
}
