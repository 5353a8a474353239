package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/inputfile"
)

// CheckShape checks, cheaply, that the files of the ledger at path still
// make one ledger before a run appends to it: the sealed segments' names
// and continuity (no gap, overlap, stray or renamed file), each sealed
// segment's first line (its seq, and a prev that is the hash of the
// segment before's last entry) and its tail (the last line and the 64 KiB
// before it, as a chain, ending at the seq its name says), its tree file
// when there is one (its shape, sum and head), no tree file without its
// segment, and the active segment's first line against the last sealed
// entry. It reads a few KiB per segment, never a whole one, so a byte
// flipped in the middle of an old segment is left to `optr ledger verify`;
// whatever it finds is an error naming the file and pointing there. A
// ledger with no file at all is fine: the first append creates it.
func CheckShape(path string) error {
	segs, err := Segments(path)
	if err != nil {
		return fmt.Errorf("%w; run `optr ledger verify --ledger %s`", err, path)
	}
	var head Head
	for _, s := range segs {
		name := filepath.Base(s.Path)
		switch {
		case s.First > head.Seq+1:
			return segmentError(s.Path, head.Seq+1, "entries %d to %d are missing: there is no sealed segment for them before %s", head.Seq+1, s.First-1, name)
		case s.First <= head.Seq:
			return segmentError(s.Path, s.First, "segment %s starts at seq %d, but the segments before it already hold entries up to %d", name, s.First, head.Seq)
		}
		next, err := segmentShape(s, head)
		if err != nil {
			return err
		}
		head = next
	}
	if err := orphanTrees(path, segs); err != nil {
		return err
	}
	f, err := inputfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read ledger: %w", err)
	}
	defer f.Close()
	if err := continues(f, path, head, filepath.Base(path)); err != nil {
		return err
	}
	return nil
}

// segmentShape checks one sealed segment that must follow head, and
// returns its own head.
func segmentShape(s Segment, head Head) (Head, error) {
	name := filepath.Base(s.Path)
	f, err := inputfile.Open(s.Path)
	if err != nil {
		return head, fmt.Errorf("read ledger segment: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return head, fmt.Errorf("read ledger segment: %w", err)
	}
	if fi.Size() == 0 {
		return head, segmentError(s.Path, s.First, "segment %s is empty, but its name says it holds entries %d to %d", name, s.First, s.Last)
	}
	if err := continues(f, s.Path, head, name); err != nil {
		return head, err
	}
	last, err := readTailHead(f, fi.Size())
	if err != nil {
		var verr *VerifyError
		if errors.As(err, &verr) {
			return head, fmt.Errorf("ledger %s: %w", s.Path, verr)
		}
		return head, err
	}
	if last.Seq != s.Last {
		return head, segmentError(s.Path, last.Seq, "segment %s ends with seq %d, but its name says %d: it was cut short, extended or renamed", name, last.Seq, s.Last)
	}
	data, err := os.ReadFile(s.TreePath())
	if errors.Is(err, os.ErrNotExist) {
		return last, nil // derived data: proofs hash the ledger until BuildTrees writes it
	}
	if err != nil {
		return head, fmt.Errorf("read ledger tree file: %w", err)
	}
	tree, err := parseTree(data)
	switch {
	case err != nil:
		return head, treeError(s, "tree file %s: %v", filepath.Base(s.TreePath()), err)
	case tree.first != s.First || tree.size != s.Last:
		return head, treeError(s, "tree file %s is for entries %d to %d, its segment holds %d to %d", filepath.Base(s.TreePath()), tree.first, tree.size, s.First, s.Last)
	case tree.head != last.Hash:
		return head, treeError(s, "tree file %s ends at entry hash %.12s…, but segment %s ends at %.12s…: one of them was changed", filepath.Base(s.TreePath()), tree.head, name, last.Hash)
	}
	return last, nil
}

// continues checks that the first line of f (a ledger file named name)
// follows head: its seq is one more and its prev is head's hash. An empty
// file continues anything.
func continues(f *os.File, path string, head Head, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read ledger: %w", err)
	}
	if fi.Size() == 0 {
		return nil
	}
	info, err := firstLine(f, fi.Size())
	if err != nil {
		var verr *VerifyError
		if errors.As(err, &verr) {
			if verr.Line == 0 {
				verr.Line = head.Seq + 1
			}
			return fmt.Errorf("ledger %s: %w", path, verr)
		}
		return err
	}
	if info.seq != head.Seq+1 || string(info.prev) != head.prevHash() {
		what := "the last sealed entry"
		if head.Seq == 0 {
			what = "the start of the ledger"
		}
		return segmentError(path, head.Seq+1, "%s starts with seq %d (prev %.12s…), which does not follow %s (seq %d, hash %.12s…): a segment before it was removed, replaced or renamed", name, info.seq, info.prev, what, head.Seq, head.prevHash())
	}
	return nil
}

func treeError(s Segment, format string, args ...any) error {
	return fmt.Errorf("ledger %s: %w; run `optr ledger verify --ledger %s`", s.TreePath(), newLineError(ProblemTree, format, args...).at(s.First), s.Path)
}
