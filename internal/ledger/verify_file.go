package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
)

// ProblemSegment: a sealed segment is missing, misnamed, empty or out of
// place, so the segments do not make one ledger.
const ProblemSegment Problem = "segment"

// VerifyFile verifies the whole ledger at path: its sealed segments in
// order, then the active segment, as one chain (DESIGN §4.3). Each sealed
// segment must hold exactly the entries its name says, following the one
// before; a missing, reordered or misnamed segment is a *VerifyError
// (ProblemSegment, or the seq or prev fault it causes) wrapped with the
// file it is in. Line numbers count across segments: in a valid ledger the
// line number is the entry's seq. A ledger with no file at all is an error
// wrapping os.ErrNotExist; sealed segments without an active one (a crash
// right after sealing) are a valid ledger.
func VerifyFile(path string) (Summary, error) {
	return verifyFile(path, nil)
}

func verifyFile(path string, tree *treeRecorder) (Summary, error) {
	segs, err := Segments(path)
	if err != nil {
		return Summary{}, fmt.Errorf("verify ledger: %w", err)
	}
	p := newPipeline(tree) // one for all the files
	defer p.close()
	var sum Summary
	for _, s := range segs {
		name := filepath.Base(s.Path)
		switch {
		case s.First > sum.Head.Seq+1:
			return sum, segmentError(s.Path, sum.Head.Seq+1, "entries %d to %d are missing: there is no sealed segment for them before %s", sum.Head.Seq+1, s.First-1, name)
		case s.First <= sum.Head.Seq:
			return sum, segmentError(s.Path, s.First, "segment %s starts at seq %d, but the segments before it already hold entries up to %d", name, s.First, sum.Head.Seq)
		}
		if tree != nil {
			tree.startSegment(s.First)
		}
		next, err := verifyPart(p, s.Path, sum.Head)
		if err != nil {
			return sum, err
		}
		if next.Head.Seq != s.Last {
			return sum, segmentError(s.Path, next.Head.Seq, "segment %s ends with seq %d, but its name says %d: it was cut short, extended or renamed", name, next.Head.Seq, s.Last)
		}
		if tree != nil {
			if err := tree.endSegment(s, next.Head); err != nil {
				return sum, err
			}
		}
		sum = next
	}
	if tree != nil {
		if err := orphanTrees(path, segs); err != nil {
			return sum, err
		}
	}
	next, err := verifyPart(p, path, sum.Head)
	if errors.Is(err, os.ErrNotExist) && len(segs) > 0 {
		return sum, nil
	}
	return next, err
}

// verifyPart verifies one file of a ledger, continuing from head.
func verifyPart(p *pipeline, path string, head Head) (Summary, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return Summary{Entries: head.Seq, Head: head}, fmt.Errorf("verify ledger: %w", err)
	}
	defer f.Close()
	s, err := p.verify(f, head)
	if err != nil {
		return s, fmt.Errorf("ledger %s: %w", path, err)
	}
	return s, nil
}

// orphanTrees refuses a tree file whose segment is not there: the
// segment was removed, or renamed.
func orphanTrees(path string, segs []Segment) error {
	des, err := os.ReadDir(SegmentDir(path))
	if err != nil {
		return nil // no directory: no tree files (Segments read it already)
	}
	have := map[string]bool{}
	for _, s := range segs {
		have[filepath.Base(s.TreePath())] = true
	}
	for _, de := range des {
		name := de.Name()
		if first, _, err := ParseTreeName(name); err == nil && !have[name] {
			p := filepath.Join(SegmentDir(path), name)
			return fmt.Errorf("ledger %s: %w", p, newLineError(ProblemTree, "tree file %s has no segment %s: the segment was removed or renamed", name, strings.TrimSuffix(name, treeExt)+".jsonl").at(first))
		}
	}
	return nil
}

func segmentError(path string, line int64, format string, args ...any) error {
	return fmt.Errorf("ledger %s: %w", path, newLineError(ProblemSegment, format, args...).at(line))
}
