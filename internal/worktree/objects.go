package worktree

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// objectSnapshot reads base's tree from the repository's object store
// into a snapshot, so that even the run's first worktree is written from
// memory rather than checked out by git and read back: the same bytes git
// would write, because it returns a snapshot only where git's checkout
// converts nothing. It returns nil (no error) when a conversion may apply
// — core.autocrlf, core.eol crlf, core.symlinks false, a sparse checkout,
// or a filter, ident, working-tree-encoding or eol=crlf attribute on any
// path, from any attributes source — or when the tree holds a path git
// would refuse to check out, an entry it cannot copy, or more than limit
// bytes. The first worktree is then checked out by git (takeSnapshot).
// scratch is a file name free for a temporary index.
func objectSnapshot(ctx context.Context, g gitCmd, workspace, base, scratch string, limit int64) (*snapshot, error) {
	if ok, err := convertsNothingByConfig(ctx, g, workspace); err != nil || !ok {
		return nil, err
	}
	out, err := g.run(ctx, workspace, nil, "ls-tree", "-r", "-l", "-z", "--full-tree", base)
	if err != nil {
		return nil, err
	}
	s := &snapshot{mtime: time.Now().Add(-time.Second).Truncate(time.Second)}
	var total int64
	for _, rec := range splitZ(out) {
		e, size, ok := parseTreeEntry(rec)
		if !ok || badPath(e.path) != "" {
			return nil, nil
		}
		if s.hashLen == 0 {
			s.hashLen = len(e.oid)
		}
		if len(e.oid) != s.hashLen || (s.hashLen != 20 && s.hashLen != 32) {
			return nil, nil
		}
		if total += size; total > limit {
			return nil, nil
		}
		s.entries = append(s.entries, e)
	}
	// The index's order: paths compared byte by byte.
	slices.SortFunc(s.entries, func(a, b snapEntry) int { return strings.Compare(a.path, b.path) })
	seen := map[string]bool{}
	for _, e := range s.entries {
		var parents []string
		for d := parentDir(e.path); d != "" && !seen[d]; d = parentDir(d) {
			seen[d] = true
			parents = append(parents, d)
		}
		for i := len(parents) - 1; i >= 0; i-- {
			s.dirs = append(s.dirs, parents[i])
		}
	}
	for i, e := range s.entries {
		if seen[e.path] || (i > 0 && s.entries[i-1].path == e.path) {
			return nil, nil // a name twice, or a file that is also a directory: not a tree git wrote
		}
	}
	if ok, err := convertsNothingByAttributes(ctx, g, workspace, base, scratch, s.entries); err != nil || !ok {
		return nil, err
	}
	if err := s.readBlobs(ctx, g, workspace); err != nil {
		return nil, err
	}
	return s, nil
}

// parseTreeEntry reads one record of git ls-tree -r -l -z: "mode type oid
// size\tpath" (size "-" for a gitlink), as the snapshot entry git's
// checkout would make of it and the bytes it holds.
func parseTreeEntry(rec string) (e snapEntry, size int64, ok bool) {
	meta, path, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 4 || path == "" {
		return snapEntry{}, 0, false
	}
	mode, err := strconv.ParseUint(f[0], 8, 32)
	if err != nil {
		return snapEntry{}, 0, false
	}
	e = snapEntry{mode: uint32(mode), path: path}
	switch {
	case mode == 0o100644 && f[1] == "blob":
		e.perm = 0o666 // less the umask, as git creates files
	case mode == 0o100755 && f[1] == "blob":
		e.perm = 0o777
	case mode == 0o120000 && f[1] == "blob":
		e.kind = os.ModeSymlink
	case mode == 0o160000 && f[1] == "commit":
		e.kind = os.ModeDir // a submodule not checked out: an empty directory
	default:
		return snapEntry{}, 0, false
	}
	if e.oid, err = hex.DecodeString(f[2]); err != nil || bytes.Count(e.oid, []byte{0}) == len(e.oid) {
		return snapEntry{}, 0, false
	}
	if e.kind != os.ModeDir {
		if size, err = strconv.ParseInt(f[3], 10, 64); err != nil || size < 0 {
			return snapEntry{}, 0, false
		}
	}
	return e, size, true
}

// convertsNothingByConfig reports whether the repository's configuration
// (every scope git reads) leaves checked-out files byte for byte as their
// blobs, symlinks as symlinks, and every path checked out.
func convertsNothingByConfig(ctx context.Context, g gitCmd, workspace string) (bool, error) {
	out, err := g.run(ctx, workspace, nil, "config", "--list", "-z")
	if err != nil {
		return false, err
	}
	for _, kv := range splitZ(out) {
		key, value, _ := strings.Cut(kv, "\n")
		value = strings.ToLower(strings.TrimSpace(value))
		switch strings.ToLower(key) {
		case "core.autocrlf", "core.sparsecheckout":
			if !falseValue(value) {
				return false, nil
			}
		case "core.eol":
			if value == "crlf" {
				return false, nil
			}
		case "core.symlinks":
			if falseValue(value) {
				return false, nil
			}
		}
	}
	return true, nil
}

// falseValue reports whether a git configuration value means false ("" is
// a key given without a value, which means true).
func falseValue(v string) bool {
	switch v {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// convertsNothingByAttributes reports whether no path of entries has an
// attribute that changes its bytes at checkout (filter, ident,
// working-tree-encoding, eol=crlf), as base's own .gitattributes files
// (read into a temporary index at scratch, whatever the workspace holds)
// and the repository's and user's attributes files set them.
func convertsNothingByAttributes(ctx context.Context, g gitCmd, workspace, base, scratch string, entries []snapEntry) (bool, error) {
	idx := g.with("GIT_INDEX_FILE=" + scratch)
	defer os.Remove(scratch)
	if _, err := idx.run(ctx, workspace, nil, "read-tree", base); err != nil {
		return false, err
	}
	var paths bytes.Buffer
	for _, e := range entries {
		paths.WriteString(e.path)
		paths.WriteByte(0)
	}
	out, err := idx.run(ctx, workspace, paths.Bytes(), "check-attr", "--cached", "-z", "--stdin", "filter", "ident", "working-tree-encoding", "eol")
	if err != nil {
		return false, err
	}
	recs := splitZ(out)
	if len(recs)%3 != 0 {
		return false, fmt.Errorf("git check-attr answered %d fields, not path, attribute, value triples", len(recs))
	}
	for i := 0; i < len(recs); i += 3 {
		attr, value := recs[i+1], recs[i+2]
		switch {
		case value == "unspecified" || value == "unset":
		case attr == "eol" && value != "crlf":
		default:
			return false, nil
		}
	}
	return true, nil
}

// readBlobs reads the content of every file and symlink entry with one git
// cat-file --batch.
func (s *snapshot) readBlobs(ctx context.Context, g gitCmd, workspace string) error {
	var req bytes.Buffer
	for _, e := range s.entries {
		if e.kind != os.ModeDir {
			req.WriteString(hex.EncodeToString(e.oid))
			req.WriteByte('\n')
		}
	}
	out, err := g.run(ctx, workspace, req.Bytes(), "cat-file", "--batch")
	if err != nil {
		return err
	}
	for i := range s.entries {
		e := &s.entries[i]
		if e.kind == os.ModeDir {
			continue
		}
		head, rest, ok := bytes.Cut(out, []byte{'\n'})
		f := strings.Fields(string(head))
		if !ok || len(f) != 3 || f[0] != hex.EncodeToString(e.oid) || f[1] != "blob" {
			return fmt.Errorf("read %s from the object store: git cat-file answered %q", e.path, head)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size >= len(rest) || rest[size] != '\n' {
			return fmt.Errorf("read %s from the object store: git cat-file's answer is cut short", e.path)
		}
		e.data, out = rest[:size:size], rest[size+1:]
	}
	return nil
}

// scratchIndex is where objectSnapshot keeps its temporary index: in the
// run's directory, which only this run writes.
func (r *Run) scratchIndex() string { return filepath.Join(r.dir, ".attributes-index") }
