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
// order, then the active segment, as one chain (architecture §4.3). Each sealed
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
	// One pipeline for all the files, each read while the checkers finish
	// the one before: what is checked at a file's end (its last seq, its
	// tree file) the orderer does, in order, in the end mark's then.
	f := filesRun{p: newPipeline(tree, len(segs)+1, true, nil)}
	defer f.p.close()
	var last int64 // the last seq of the segments sent: the head, if they are good
	for i, s := range segs {
		name := filepath.Base(s.Path)
		switch {
		case s.First > last+1:
			return f.fail(segmentError(s.Path, last+1, "entries %d to %d are missing: there is no sealed segment for them before %s", last+1, s.First-1, name))
		case s.First <= last:
			return f.fail(segmentError(s.Path, s.First, "segment %s starts at seq %d, but the segments before it already hold entries up to %d", name, s.First, last))
		}
		if tree != nil && i == 0 {
			tree.startSegment(s.First) // the later ones in the then before them
		}
		then := func(sum Summary) error {
			if sum.Head.Seq != s.Last {
				return segmentError(s.Path, sum.Head.Seq, "segment %s ends with seq %d, but its name says %d: it was cut short, extended or renamed", name, sum.Head.Seq, s.Last)
			}
			if tree == nil {
				return nil
			}
			if err := tree.endSegment(s, sum.Head); err != nil {
				return err
			}
			if i+1 < len(segs) {
				tree.startSegment(segs[i+1].First)
			}
			return nil
		}
		if err := f.send(s.Path, then); err != nil {
			return f.fail(err)
		}
		last = s.Last
	}
	if tree != nil {
		if err := orphanTrees(path, segs); err != nil {
			return f.fail(err)
		}
	}
	err = f.send(path, nil)
	if errors.Is(err, os.ErrNotExist) && len(segs) > 0 {
		return f.fail(nil)
	}
	if err != nil {
		return f.fail(err)
	}
	if err := f.wait(); err != nil {
		if f.got == len(segs) { // the active segment's own lines failed
			return Summary{}, err
		}
		return f.sum, err
	}
	return f.sum, nil
}

// filesRun is the files of one ledger on their way through a pipeline.
type filesRun struct {
	p     *pipeline
	paths []string // of the files sent, in order
	got   int      // the results taken, of paths[:got]
	sum   Summary  // the ledger as far as the results taken
}

// send sends the file at path through the pipeline, continuing the files
// before it, with then for its end mark. It returns once the file is
// read; an error is the failure to open it.
func (f *filesRun) send(path string, then func(Summary) error) error {
	r, err := inputfile.Open(path)
	if err != nil {
		return fmt.Errorf("verify ledger: %w", err)
	}
	defer r.Close()
	f.paths = append(f.paths, path)
	f.p.stream(r, then)
	return nil
}

// wait takes the results of the files sent, in order, and returns the
// first failure.
func (f *filesRun) wait() error {
	for ; f.got < len(f.paths); f.got++ {
		res := <-f.p.done
		if err := res.failure(); err != nil {
			return fmt.Errorf("ledger %s: %w", f.paths[f.got], err)
		}
		if res.thenErr != nil {
			return res.thenErr
		}
		f.sum = res.summary
	}
	return nil
}

// fail returns err, found before the next file was sent, unless a file
// sent before it failed: the failure first in the ledger's order is the
// one reported. With err nil, the files sent are the whole ledger.
func (f *filesRun) fail(err error) (Summary, error) {
	if werr := f.wait(); werr != nil {
		return f.sum, werr
	}
	return f.sum, err
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
