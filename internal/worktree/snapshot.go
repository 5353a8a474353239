package worktree

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultSnapshotBytes bounds the files a Run keeps in memory to copy
// worktrees from (Options.SnapshotBytes when zero): 256 MiB. A larger
// tree makes every worktree with git worktree add instead.
const DefaultSnapshotBytes = 256 << 20

// snapshot is the run's first worktree as git checked it out, kept in
// memory: every index entry with its content as it was on disk (git's
// filters applied). Later worktrees are written from it instead of being
// checked out again, which spares git inflating every blob for every
// agent; their index is written with the stat data of the files as they
// were written, so git trusts it as it trusts its own checkout's.
type snapshot struct {
	// mtime is the modification time every copied file and symlink gets:
	// two seconds before the snapshot was taken, truncated to the second,
	// so in an earlier second than any copy's index even as the file
	// system dates it (its clock lags time.Now by up to a timer tick). An
	// entry as new as its index is "racily clean" to git, which then
	// re-reads it at every refresh (to the second, where git is built
	// without nanosecond timestamps: a whole tree written within a second
	// would be read again); one older is trusted, and any later change by
	// an agent gives the file a newer time than the recorded one.
	mtime   time.Time
	entries []snapEntry
	dirs    []string // every directory to create, parents first
	hashLen int      // bytes of an object id: 20 (SHA-1) or 32 (SHA-256)
}

// snapEntry is one index entry of the snapshot.
type snapEntry struct {
	mode uint32 // the index mode: 0o100644, 0o100755, 0o120000 or 0o160000
	oid  []byte
	path string      // slash-separated, as in the index
	kind os.FileMode // what was on disk: 0 (a regular file), ModeSymlink or ModeDir
	perm os.FileMode // a regular file's permission bits on disk
	data []byte      // a file's content or a symlink's target
}

// takeSnapshot reads the worktree dir that git just checked out into
// memory. It returns nil (no error) when the tree cannot be copied
// faithfully or is larger than limit bytes: every worktree is then made by
// git.
func takeSnapshot(ctx context.Context, g gitCmd, dir string, limit int64) (*snapshot, error) {
	out, err := g.run(ctx, dir, nil, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	recs := splitZ(out)
	s := &snapshot{entries: make([]snapEntry, len(recs)), mtime: time.Now().Add(-2 * time.Second).Truncate(time.Second)}
	for i, rec := range recs {
		e, ok := parseStage(rec)
		if !ok {
			return nil, nil // a conflict stage or a format this code does not know
		}
		if s.hashLen == 0 {
			s.hashLen = len(e.oid)
		}
		if len(e.oid) != s.hashLen || (s.hashLen != 20 && s.hashLen != 32) {
			return nil, nil
		}
		s.entries[i] = e
	}
	var total int64
	for i := range s.entries {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(s.entries[i].path)))
		if err != nil {
			return nil, nil // not checked out (sparse checkout): let git do it
		}
		switch {
		case fi.Mode().IsRegular():
			total += fi.Size()
			s.entries[i].perm = fi.Mode().Perm()
		case fi.Mode()&os.ModeSymlink != 0:
			s.entries[i].kind = os.ModeSymlink
		case fi.IsDir() && s.entries[i].mode == 0o160000:
			s.entries[i].kind = os.ModeDir
		default:
			return nil, nil
		}
		if total > limit {
			return nil, nil
		}
	}
	var eg errgroup.Group
	eg.SetLimit(runtime.NumCPU())
	for i := range s.entries {
		e := &s.entries[i]
		if e.kind == os.ModeDir {
			continue
		}
		eg.Go(func() error {
			p := filepath.Join(dir, filepath.FromSlash(e.path))
			if e.kind == os.ModeSymlink {
				target, err := os.Readlink(p)
				e.data = []byte(target)
				return err
			}
			var err error
			e.data, err = os.ReadFile(p)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, fmt.Errorf("read the first worktree: %w", err)
	}
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
	return s, nil
}

// parentDir returns the slash-separated parent of p, "" at the top.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// parseStage reads one record of git ls-files --stage -z: "mode oid
// stage\tpath". Only stage 0 is accepted.
func parseStage(rec string) (snapEntry, bool) {
	meta, path, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 || f[2] != "0" || path == "" {
		return snapEntry{}, false
	}
	mode, err := strconv.ParseUint(f[0], 8, 32)
	if err != nil {
		return snapEntry{}, false
	}
	switch mode {
	case 0o100644, 0o100755, 0o120000, 0o160000:
	default:
		return snapEntry{}, false
	}
	oid, err := hex.DecodeString(f[1])
	if err != nil || bytes.Count(oid, []byte{0}) == len(oid) {
		return snapEntry{}, false
	}
	return snapEntry{mode: uint32(mode), oid: oid, path: path}, true
}
