package worktree

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultSnapshotBytes bounds the files a Run keeps in memory to write
// the agents' trees from (Options.SnapshotBytes when zero): 256 MiB. A
// larger tree is checked out by git for every agent instead.
const DefaultSnapshotBytes = 256 << 20

// snapshot is the base commit's tree as every agent's tree starts: each
// entry in index order and, when the trees are written by optr, its
// content as git would check it out. It is read once per run from the
// workspace's objects, never from a work tree, and then shared: each
// agent's tree is written from it without git inflating every blob again,
// with an index recording the files as written, so git trusts it as it
// trusts its own checkout's.
type snapshot struct {
	// mtime is the modification time every written file and symlink gets:
	// two seconds before the snapshot was taken, truncated to the second,
	// so in an earlier second than any tree's index even as the file
	// system dates it (its clock lags time.Now by up to a timer tick). An
	// entry as new as its index is "racily clean" to git, which then
	// re-reads it at every refresh (to the second, where git is built
	// without nanosecond timestamps: a whole tree written within a second
	// would be read again); one older is trusted, and any later change by
	// an agent gives the file a newer time than the recorded one.
	mtime   time.Time
	entries []snapEntry
	dirs    []string // every directory of the tree, parents first
	hashLen int      // bytes of an object id: 20 (SHA-1) or 32 (SHA-256)
	// byPath finds an entry's index by its path; tracked says which
	// directories hold tracked entries.
	byPath  map[string]int
	tracked map[string]bool
	// written tells that entries carry their content and trees are
	// written from it; else git checks every tree out (see loadSnapshot).
	written bool
}

// snapEntry is one entry of the base tree.
type snapEntry struct {
	mode uint32 // the index mode: 0o100644, 0o100755, 0o120000 or 0o160000
	oid  []byte
	path string // slash-separated, as in the index
	data []byte // a file's content or a symlink's target (when written)
}

// loadSnapshot reads the tree of base through g, a command on a
// repository that borrows the workspace's objects: its entries with
// git ls-tree, then every blob's content with one git cat-file --batch.
// Trees are then written by optr unless the contents are larger than
// limit bytes (limit < 0: never), or the tree's .gitattributes ask for a
// conversion at checkout (end-of-line, ident, working-tree-encoding) that
// git applies and a copy of the blob would not: git then checks every
// tree out. No filter of the workspace's configuration applies (an agent's
// repository has none; git-lfs pointers stay pointers).
func loadSnapshot(ctx context.Context, g gitCmd, base string, limit int64) (*snapshot, error) {
	out, err := g.run(ctx, "", nil, "ls-tree", "-r", "-z", "--full-tree", base)
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", base, err)
	}
	recs := splitZ(out)
	s := &snapshot{
		entries: make([]snapEntry, len(recs)), mtime: time.Now().Add(-2 * time.Second).Truncate(time.Second),
		byPath: make(map[string]int, len(recs)), tracked: map[string]bool{"": true},
	}
	for i, rec := range recs {
		e, err := parseTreeEntry(rec)
		if err != nil {
			return nil, err
		}
		if s.hashLen == 0 {
			s.hashLen = len(e.oid)
		}
		if len(e.oid) != s.hashLen {
			return nil, fmt.Errorf("git ls-tree answered ids of %d and %d bytes", s.hashLen, len(e.oid))
		}
		s.entries[i] = e
	}
	// Index order is byte order of the paths; git ls-tree's order (a
	// directory sorts as its name and a slash) is the same for any tree
	// git accepts, but an index out of order is corrupt to git.
	if !slices.IsSortedFunc(s.entries, func(a, b snapEntry) int { return strings.Compare(a.path, b.path) }) {
		slices.SortFunc(s.entries, func(a, b snapEntry) int { return strings.Compare(a.path, b.path) })
	}
	for i, e := range s.entries {
		s.byPath[e.path] = i
		var parents []string
		for d := parentDir(e.path); d != "" && !s.tracked[d]; d = parentDir(d) {
			s.tracked[d] = true
			parents = append(parents, d)
		}
		for i := len(parents) - 1; i >= 0; i-- {
			s.dirs = append(s.dirs, parents[i])
		}
	}
	if limit >= 0 {
		ok, err := s.readBlobs(ctx, g, limit)
		if err != nil {
			return nil, err
		}
		s.written = ok && !s.converts()
		if !s.written {
			for i := range s.entries {
				s.entries[i].data = nil
			}
		}
	}
	return s, nil
}

// parseTreeEntry reads one record of git ls-tree -z: "mode type
// oid\tpath".
func parseTreeEntry(rec string) (snapEntry, error) {
	meta, p, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 || p == "" {
		return snapEntry{}, fmt.Errorf("git ls-tree answered %q", rec)
	}
	mode, err := strconv.ParseUint(f[0], 8, 32)
	if err != nil {
		return snapEntry{}, fmt.Errorf("git ls-tree answered %q", rec)
	}
	switch mode {
	case 0o100644, 0o100755, 0o120000, 0o160000:
	case 0o100664: // old git wrote group-writable files; git reads them as 100644
		mode = 0o100644
	default:
		return snapEntry{}, fmt.Errorf("git ls-tree answered mode %o for %s", mode, p)
	}
	if reason := badPath(p); reason != "" {
		return snapEntry{}, fmt.Errorf("the base commit holds a path optr refuses: %s", reason)
	}
	oid, err := hex.DecodeString(f[2])
	if err != nil || (len(oid) != 20 && len(oid) != 32) {
		return snapEntry{}, fmt.Errorf("git ls-tree answered %q", rec)
	}
	return snapEntry{mode: uint32(mode), oid: oid, path: p}, nil
}

// readBlobs reads the content of every file and symlink, each distinct
// blob once, with git cat-file --batch: one process per core, each on
// its share of the blobs (inflating them is most of the set-up's work
// before the first tree can be written). It answers false, having
// stopped reading, as soon as the contents pass limit bytes.
func (s *snapshot) readBlobs(ctx context.Context, g gitCmd, limit int64) (bool, error) {
	want := map[string][]int{}
	var order []string
	for i, e := range s.entries {
		if e.mode == 0o160000 {
			continue
		}
		id := hex.EncodeToString(e.oid)
		if _, seen := want[id]; !seen {
			order = append(order, id)
		}
		want[id] = append(want[id], i)
	}
	if len(order) == 0 {
		return true, nil
	}
	// A process for fewer than blobsPerProcess blobs costs more to start
	// than it saves.
	const blobsPerProcess = 1000
	procs := max(1, min(runtime.NumCPU(), len(order)/blobsPerProcess))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var total atomic.Int64
	over := atomic.Bool{}
	eg, ctx := errgroup.WithContext(ctx)
	for p := range procs {
		part := order[p*len(order)/procs : (p+1)*len(order)/procs]
		eg.Go(func() error {
			ok, err := s.readPart(ctx, g, part, want, &total, limit)
			if err == nil && !ok {
				over.Store(true)
				cancel() // the others stop too
			}
			return err
		})
	}
	if err := eg.Wait(); err != nil && !over.Load() {
		return false, err
	}
	return !over.Load(), nil
}

// readPart reads the blobs part with one git cat-file --batch, adding
// their sizes to total; it answers false, having stopped, when total
// passes limit.
func (s *snapshot) readPart(ctx context.Context, g gitCmd, part []string, want map[string][]int, total *atomic.Int64, limit int64) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.command(ctx, "", "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(part, "\n") + "\n")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return false, err
	}
	ok, rerr := s.readBatch(bufio.NewReaderSize(stdout, 1<<16), part, want, total, limit)
	if !ok || rerr != nil {
		cancel() // stop git; what it says after is of no interest
		_ = cmd.Wait()
		return false, rerr
	}
	if err := cmd.Wait(); err != nil {
		return false, g.failed("cat-file", err, stderr.String())
	}
	return true, nil
}

// readBatch reads git cat-file --batch's answers for order.
func (s *snapshot) readBatch(r *bufio.Reader, order []string, want map[string][]int, total *atomic.Int64, limit int64) (bool, error) {
	for _, id := range order {
		head, err := r.ReadString('\n')
		if err != nil {
			return false, fmt.Errorf("git cat-file --batch: %w", err)
		}
		f := strings.Fields(head)
		switch {
		case len(f) == 2 && f[1] == "missing":
			return false, fmt.Errorf("the workspace's repository lacks object %s (a partial clone?): fetch the base commit's blobs, or check out with the full history of its files", id)
		case len(f) != 3 || f[0] != id || f[1] != "blob":
			return false, fmt.Errorf("git cat-file --batch answered %q for %s", strings.TrimSpace(head), id)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return false, fmt.Errorf("git cat-file --batch answered %q", strings.TrimSpace(head))
		}
		if total.Add(size) > limit {
			return false, nil
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			return false, fmt.Errorf("git cat-file --batch: %w", err)
		}
		for _, i := range want[id] {
			s.entries[i].data = data[:size:size]
		}
	}
	return true, nil
}

// converts reports whether a .gitattributes file of the tree may ask git
// to convert a blob at checkout: an end-of-line (eol, crlf, text with
// crlf), ident or working-tree-encoding attribute. Without the
// workspace's configuration nothing else does (filter and diff drivers
// are configuration; an agent's repository has none).
func (s *snapshot) converts() bool {
	for _, e := range s.entries {
		if path.Base(e.path) != ".gitattributes" || e.mode == 0o160000 {
			continue
		}
		for _, word := range []string{"eol", "crlf", "ident", "encoding"} {
			if bytes.Contains(bytes.ToLower(e.data), []byte(word)) {
				return true
			}
		}
	}
	return false
}

// parentDir returns the slash-separated parent of p, "" at the top.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// errNotWritten is returned by a tree's writer when the snapshot holds
// no content.
var errNotWritten = errors.New("the snapshot holds no content to write trees from")
