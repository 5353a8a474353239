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
	"slices"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/patch"
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

// Capture records what the agent changed in its tree since Base: edits
// to tracked files, new files (those .gitignore does not exclude) and
// deleted files, binary-safe, as one patch with per-file line counts,
// whatever the agent did to its own repository (commits, branches, a
// staged index, its configuration). It checks every changed path before
// git reads a file, so a huge file is never hashed into a repository.
// Call it once the agent's processes are done and before checks run in
// the tree (a check's build output must not become part of the change).
// A refused change comes back with Refused set and a nil error; the
// error is for git failing.
//
// The agent owns its tree and its .git, so nothing there steers optr's
// git: the change is found by comparing the tree with the stat data of
// the files as they were written (no git status, no index of the
// agent's), the changed files are hashed into the run's own repository
// (git hash-object) and the patch is the difference between the base and
// an index optr writes (git diff --cached, without a work tree: no
// attribute of the agent's applies). Every command runs isolated (no
// system, global or agent configuration; no hooks, file system monitor,
// external diff, textconv or pager); the index is read once.
func (t *Tree) Capture(ctx context.Context, lim Limits) (ch Change, err error) {
	t.mu.Lock()
	stats, removed := t.stats, t.removed
	t.mu.Unlock()
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
		return ch, nil
	}
	fail := func(err error) (Change, error) {
		return ch, fmt.Errorf("capture the change of %s: %w", t.agent, err)
	}
	s, err := r.snapshot(ctx)
	if err == nil && (s == nil || removed || stats == nil) {
		err = errors.New("its worktree was removed")
	}
	if err != nil {
		return fail(err)
	}
	g := r.own.with("GIT_WORK_TREE=" + t.dir)
	touched, reason, err := t.status(ctx, g, s, stats)
	if err != nil {
		return fail(err)
	}
	if reason != "" {
		return refuse("%s", reason)
	}
	for _, c := range touched {
		if reason := t.checkPath(c, lim); reason != "" {
			return refuse("%s", reason)
		}
	}
	if err := t.hash(ctx, g, touched); err != nil {
		return fail(err)
	}
	entries, any := changedIndex(s, stats, touched)
	if !any {
		return ch, nil
	}
	index := filepath.Join(r.repo, "index-"+t.agent)
	if err := writeIndex(index, s.hashLen, entries, nil); err != nil {
		return fail(err)
	}
	// One git diff for the file list, the line counts and the patch, on
	// the run's repository alone (no work tree: attributes do not apply).
	out, err := r.own.with("GIT_INDEX_FILE="+index).run(ctx, r.repo, nil, "diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color",
		"--full-index", "--src-prefix=a/", "--dst-prefix=b/", "--raw", "--numstat", "--binary", "-z", r.base)
	if err != nil {
		return fail(err)
	}
	raw, num, patch, err := splitDiff(out)
	if err != nil {
		return fail(err)
	}
	files, reason := parseRaw(raw)
	if reason != "" {
		return refuse("%s", reason)
	}
	if err := addNumstat(files, num); err != nil {
		return fail(err)
	}
	if lim.Redactor.Holds(string(patch)) || lim.Redactor.HoldsAcross(addedLines(patch)) {
		return refuse("the change contains the value of a secret optr was given (8 bytes or more of it, encoded or cut into pieces across lines and files); it is never stored or pushed")
	}
	ch.Patch, ch.PatchSHA256, ch.Files = patch, SHA256Hex(patch), files
	for _, f := range files {
		ch.Added += f.Added
		ch.Removed += f.Removed
	}
	return ch, nil
}

// checkPath looks at one path status reported, before git reads it.
func (t *Tree) checkPath(c touched, lim Limits) string {
	if reason := badPath(c.path); reason != "" {
		return reason
	}
	switch {
	case c.gone:
		return ""
	case c.mode == 0o120000:
		target, err := os.Readlink(filepath.Join(t.dir, filepath.FromSlash(c.path)))
		if err != nil {
			return fmt.Sprintf("%s is a symlink that cannot be read: %v", c.path, err)
		}
		return symlinkEscapes(c.path, target)
	case c.mode == 0o160000:
		return fmt.Sprintf("%s is a directory where git expects a file or submodule: submodule changes are refused", c.path)
	case c.mode == 0:
		return fmt.Sprintf("%s is not a regular file", c.path)
	case c.size > lim.MaxFileBytes:
		return fmt.Sprintf("%s is %d bytes, more than the %d a changed file may have", c.path, c.size, lim.MaxFileBytes)
	}
	return ""
}

// hash writes the content of every touched file and symlink into the
// run's repository and records its object id in c.oid: files through the
// tree's attributes (end-of-line conversion, as git add does), symlinks
// as their targets.
func (t *Tree) hash(ctx context.Context, g gitCmd, touched []touched) error {
	var files, links []int
	for i, c := range touched {
		switch {
		case c.gone:
		case c.mode == 0o120000:
			links = append(links, i)
		default:
			files = append(files, i)
		}
	}
	if len(links) > 0 {
		tmp, err := os.MkdirTemp(t.run.repo, "links-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		var paths []string
		for n, i := range links {
			target, err := os.Readlink(filepath.Join(t.dir, filepath.FromSlash(touched[i].path)))
			if err != nil {
				return err
			}
			p := filepath.Join(tmp, strconv.Itoa(n))
			if err := os.WriteFile(p, []byte(target), 0o600); err != nil {
				return err
			}
			paths = append(paths, p)
		}
		if err := hashPaths(ctx, g, t.dir, paths, touched, links, "--no-filters"); err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return nil
	}
	paths := make([]string, len(files))
	for n, i := range files {
		paths[n] = touched[i].path
	}
	return hashPaths(ctx, g, t.dir, paths, touched, files)
}

// hashPaths runs git hash-object -w --stdin-paths (and flags) in dir on
// paths and records the ids in touched[at[n]].
func hashPaths(ctx context.Context, g gitCmd, dir string, paths []string, touched []touched, at []int, flags ...string) error {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(cQuote(p))
		in.WriteByte('\n')
	}
	out, err := g.run(ctx, dir, in.Bytes(), append([]string{"hash-object", "-w", "--stdin-paths"}, flags...)...)
	if err != nil {
		return err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return fmt.Errorf("git hash-object answered %d ids for %d files", len(ids), len(paths))
	}
	for n, id := range ids {
		oid, err := hex.DecodeString(id)
		if err != nil {
			return fmt.Errorf("git hash-object answered %q", id)
		}
		touched[at[n]].oid = oid
	}
	return nil
}

// cQuote quotes p as git reads a quoted path (C style, octal escapes)
// when it holds a character a line of paths cannot carry as it is.
func cQuote(p string) string {
	if !strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' || r == 0x7f }) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// changedIndex is the index of the tree after the change: the base's
// entries with touched ones replaced, removed or added, in index order.
// It reports whether any entry differs from the base.
func changedIndex(s *snapshot, stats []statData, touched []touched) ([]indexEntry, bool) {
	entries := s.baseIndex(stats)
	drop := map[int]bool{}
	var added []indexEntry
	for _, c := range touched {
		switch {
		case c.gone:
			drop[c.entry] = true
		case c.entry >= 0:
			e := &entries[c.entry]
			if c.mode != e.mode || !bytes.Equal(c.oid, e.oid) {
				*e = indexEntry{mode: c.mode, oid: c.oid, path: c.path}
				drop[c.entry] = false // changed, kept
			}
		default:
			added = append(added, indexEntry{mode: c.mode, oid: c.oid, path: c.path})
		}
	}
	if len(drop) == 0 && len(added) == 0 {
		return nil, false
	}
	out := entries[:0]
	for i, e := range entries {
		if !drop[i] {
			out = append(out, e)
		}
	}
	out = append(out, added...)
	slices.SortFunc(out, func(a, b indexEntry) int { return strings.Compare(a.path, b.path) })
	return out, true
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

// addedLines are the lines patch adds, in order across its files: where
// a secret cut into pieces would lie.
func addedLines(p []byte) []string {
	var out []string
	for _, f := range patch.Parse(p) {
		for _, l := range f.Added {
			out = append(out, l.Text)
		}
	}
	return out
}
