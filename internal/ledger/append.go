package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/optr-dev/optr/internal/inputfile"
)

// AppendResult is what AppendFile did.
type AppendResult struct {
	// Entries are the entries written, as Chain made them.
	Entries []Entry
	// Repaired is set when a last line without its newline was completed
	// or removed before appending.
	Repaired *Repair
	// Sealed is set when the active segment was sealed first because the
	// append would have taken it past SegmentLimit.
	Sealed *Segment
}

// Repair describes a last line without its newline that AppendFile
// repaired: completed with its newline when it is a whole entry that
// chains (editors, git and copy tools strip a file's final newline), else
// removed as torn (a write cut off before it was acknowledged).
type Repair struct {
	// Path is the file it was in.
	Path string
	// Line is its line number in the ledger.
	Line int64
	// Bytes is the line's length, without the newline it lacked.
	Bytes int64
	// Completed is true when the newline was added and the line kept; false
	// when the line was removed.
	Completed bool
}

// String says what was repaired, for the log.
func (r Repair) String() string {
	if r.Completed {
		return fmt.Sprintf("ledger %s: completed the last line %d with the newline it lacked (a whole entry that chains: its newline was stripped) before appending", r.Path, r.Line)
	}
	return fmt.Sprintf("ledger %s: removed the torn last line %d (%d bytes without a trailing newline that are not a whole entry chaining onto the one before: a write that was cut off and never acknowledged) before appending", r.Path, r.Line, r.Bytes)
}

// Append chains drafts onto the ledger at path and writes them; it is
// AppendFile without the report of what else it did.
func Append(path string, drafts ...Draft) ([]Entry, error) {
	res, err := AppendFile(path, drafts...)
	return res.Entries, err
}

// AppendFile chains drafts onto the ledger at path (its active segment) and
// writes them, creating the file and its directory when missing. It holds
// an exclusive lock on the file meanwhile, so appends from several
// goroutines or processes never interleave; it reads only the file's tail
// (the last line, and the lines in the 64 KiB before it, checked as a
// chain) to find the head; it writes all new lines with one write and
// syncs them to disk.
//
// A last line without its newline is repaired under the lock and said in
// the result: a whole entry that chains onto the line before it lost only
// its newline (an editor or a copy stripped it) and is completed; anything
// else was never acknowledged (the write that added it was cut off) and is
// removed. Any other bad line in the tail makes it write nothing and
// point at `optr ledger verify`. When the new lines would take the active
// segment past SegmentLimit, the segment is sealed first (architecture §4.3):
// renamed, unchanged, into SegmentDir(path), and the entries start a new
// active segment whose first prev is the sealed segment's last hash.
func AppendFile(path string, drafts ...Draft) (AppendResult, error) {
	var res AppendResult
	if len(drafts) == 0 {
		return res, nil
	}
	for i, d := range drafts {
		if err := d.validate(); err != nil {
			return res, fmt.Errorf("append to ledger %s: draft %d (kind %q): %w", path, i+1, d.Kind, err)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("append to ledger: %w", err)
	}
	for {
		done, err := appendOnce(path, drafts, &res)
		if err != nil || done {
			return res, err
		}
	}
}

// appendOnce opens and locks the active segment and appends, or seals it
// and reports done=false so the caller starts again on the new file.
func appendOnce(path string, drafts []Draft, res *AppendResult) (done bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, fmt.Errorf("append to ledger: %w", err)
	}
	// Close errors are of no interest: the lines are synced before it, and
	// a failed write or sync is reported on its own.
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		return false, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("append to ledger: %w", err)
	}
	// Another writer may have sealed the file while this one waited for
	// the lock: then the path names a new file, and this one is sealed.
	if now, err := os.Stat(path); err != nil || !os.SameFile(fi, now) {
		return false, nil
	}
	size := fi.Size()
	if cut, line, err := tornTail(f, size); err != nil {
		return false, errTail(path, "refusing to append", err)
	} else if cut < size {
		rep, err := repairTail(f, path, cut, size, line)
		if err != nil {
			return false, err
		}
		res.Repaired = rep
		if size = cut; rep.Completed {
			size = cut + rep.Bytes + 1
		}
	}
	head, err := readTailHead(f, size)
	if err != nil {
		return false, errTail(path, "refusing to append", err)
	}
	if size == 0 {
		if head, err = sealedHead(path); err != nil {
			return false, err
		}
	}
	entries, err := Chain(head, drafts...)
	if err != nil {
		return false, fmt.Errorf("append to ledger %s: %w", path, err)
	}
	var buf []byte
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			return false, fmt.Errorf("append to ledger %s: %w", path, err)
		}
		buf = append(buf, line...)
	}
	if size > 0 && size+int64(len(buf)) > SegmentLimit {
		seg, err := seal(f, path, size, head)
		if err != nil {
			return false, err
		}
		res.Sealed = &seg
		return false, nil
	}

	if _, err := f.Write(buf); err != nil {
		return false, rollback(f, size, fmt.Errorf("write ledger %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return false, rollback(f, size, fmt.Errorf("sync ledger %s: %w", path, err))
	}
	if size == 0 {
		// A new file's directory entry must reach the disk too. The entries
		// are already durable in the file, so a failure here is not worth
		// reporting as a failed append (a retry would record them twice).
		syncDir(filepath.Dir(path))
	}
	res.Entries = entries
	return true, nil
}

// repairTail repairs the last line of f, from offset cut to size, which
// has no newline: it completes a whole entry that chains onto the entry
// before it (the last sealed segment's for the active segment's first
// line) and removes anything else.
func repairTail(f *os.File, path string, cut, size, line int64) (*Repair, error) {
	var before Head
	var err error
	if cut == 0 {
		before, err = sealedHead(path)
		line = before.Seq + 1
	} else {
		before, err = readTailHead(f, cut)
	}
	rep := &Repair{Path: path, Line: line, Bytes: size - cut}
	if err == nil && follows(f, cut, size, before) {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return nil, rollback(f, size, fmt.Errorf("ledger %s: complete the last line %d with its newline: %w", path, line, err))
		}
		rep.Completed = true
		return rep, nil
	}
	if err := f.Truncate(cut); err != nil {
		return nil, fmt.Errorf("ledger %s: remove the torn last line %d: %w; run `optr ledger verify --ledger %s`", path, line, err, path)
	}
	return rep, nil
}

// follows reports whether the bytes of f from cut to size are a whole
// entry whose hash holds and that follows before.
func follows(f *os.File, cut, size int64, before Head) bool {
	if size-cut > MaxLineSize {
		return false
	}
	line := make([]byte, size-cut)
	if n, _ := f.ReadAt(line, cut); n < len(line) {
		return false
	}
	info, lerr := checkedLine(line)
	return lerr == nil && info.seq == before.Seq+1 && string(info.prev) == before.prevHash()
}

// seal renames the active segment f (size bytes, ending with head) into
// the segment directory, unchanged. The caller holds f's lock, so no
// writer appends meanwhile, and a writer waiting for the lock notices the
// rename and opens the new active segment.
func seal(f *os.File, path string, size int64, head Head) (Segment, error) {
	first, err := firstSeq(f, size)
	if err != nil {
		return Segment{}, errTail(path, "cannot seal the full segment", err)
	}
	dir := SegmentDir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Segment{}, fmt.Errorf("seal ledger segment: %w", err)
	}
	seg := Segment{Path: filepath.Join(dir, SegmentName(first, head.Seq)), First: first, Last: head.Seq}
	if _, err := os.Stat(seg.Path); err == nil {
		return Segment{}, fmt.Errorf("seal ledger segment: %s already exists; run `optr ledger verify --ledger %s`", seg.Path, path)
	}
	if err := os.Rename(path, seg.Path); err != nil {
		return Segment{}, fmt.Errorf("seal ledger segment: %w", err)
	}
	writeSealedTree(path, seg)
	syncDir(dir)
	syncDir(filepath.Dir(path))
	return seg, nil
}

// writeSealedTree writes the tree file of a segment just sealed from the
// ledger at path, from the tree file of the segment before it. The file is derived data: when the
// one before is missing or does not fit, or writing fails, none is
// written, and checkpoints and proofs hash the ledger instead until
// BuildTrees writes it. That never makes the append fail.
func writeSealedTree(path string, seg Segment) {
	var prev []byte
	if seg.First > 1 {
		segs, err := Segments(path)
		if err != nil {
			return
		}
		i := slices.IndexFunc(segs, func(s Segment) bool { return s.Last == seg.First-1 })
		if i < 0 {
			return
		}
		if prev, err = os.ReadFile(segs[i].TreePath()); err != nil {
			return
		}
	}
	data, err := os.ReadFile(seg.Path)
	if err != nil {
		return
	}
	tree, err := SegmentTree(prev, data)
	if err != nil {
		return
	}
	writeTree(seg.TreePath(), tree)
}

// sealedHead is the head of the last sealed segment of the ledger at path,
// read from its tail: where an empty active segment continues.
func sealedHead(path string) (Head, error) {
	segs, err := Segments(path)
	if err != nil || len(segs) == 0 {
		return Head{}, err
	}
	last := segs[len(segs)-1]
	f, err := inputfile.Open(last.Path)
	if err != nil {
		return Head{}, fmt.Errorf("read the last sealed segment: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Head{}, fmt.Errorf("read the last sealed segment: %w", err)
	}
	head, err := readTailHead(f, fi.Size())
	if err != nil {
		return Head{}, errTail(last.Path, "cannot read the head of the last sealed segment", err)
	}
	if head.Seq != last.Last {
		return Head{}, fmt.Errorf("ledger segment %s ends with seq %d, not %d as its name says; run `optr ledger verify --ledger %s`", last.Path, head.Seq, last.Last, path)
	}
	return head, nil
}

// rollback cuts the file back to size after a failed write, so that no
// torn line is left behind.
func rollback(f *os.File, size int64, cause error) error {
	if err := f.Truncate(size); err != nil {
		return errors.Join(cause, fmt.Errorf("remove the partly written lines: %w; run `optr ledger verify` and remove the torn line", err))
	}
	return cause
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// TailHead returns the head of the ledger at path, reading only its tail
// (the last sealed segment's when the active one is empty or missing). A
// missing ledger is empty. A bad tail is an error, as for Append; a torn
// last line is reported, not repaired (only an append repairs it).
func TailHead(path string) (Head, error) {
	f, err := inputfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return sealedHead(path)
	}
	if err != nil {
		return Head{}, fmt.Errorf("read ledger head: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, false); err != nil {
		return Head{}, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return Head{}, fmt.Errorf("read ledger head: %w", err)
	}
	if fi.Size() == 0 {
		return sealedHead(path)
	}
	head, err := readTailHead(f, fi.Size())
	if err != nil {
		return Head{}, errTail(path, "cannot read the head", err)
	}
	return head, nil
}
