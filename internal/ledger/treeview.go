package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"

	"golang.org/x/mod/sumdb/tlog"
)

// errTreeUnusable marks a tree file that is missing or does not fit its
// segment (or segments that do not line up): the caller hashes the whole
// ledger instead, which also finds and names whatever is wrong.
var errTreeUnusable = errors.New("the ledger's tree files cannot be used")

func unusable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errTreeUnusable, fmt.Sprintf(format, args...))
}

// treeView is the Merkle tree of a segmented ledger at its head, read
// from the sealed segments' tree files and the active segment, which it
// verifies (chained onto the last sealed segment's tail) and hashes. It
// serves tlog's stored hashes (tlog.HashReader) for inclusion proofs,
// hashing at most the segments a proof reaches into.
type treeView struct {
	segs   []Segment
	sealed int64 // entries in the sealed segments
	size   int64 // entries in all
	root   tlog.Hash

	known   map[node]tlog.Hash
	loaded  map[int]bool
	records map[int][]tlog.Hash

	want int64  // the 0-based record whose line to keep, or -1
	line []byte // its line, once read
}

// openTreeView reads the tree of the ledger at path: the last sealed
// segment's tree file (checked against that segment's tail) and the
// active segment. With capture it keeps every node of the active part
// (what a proof may need); want is a record whose line to keep (-1: none).
// A missing or unfitting tree file is an error wrapping errTreeUnusable; a
// fault in the active segment is a *VerifyError, as VerifyFile reports it.
func openTreeView(path string, want int64, capture bool) (*treeView, error) {
	segs, err := Segments(path)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, unusable("no sealed segment")
	}
	for i, s := range segs {
		if (i == 0 && s.First != 1) || (i > 0 && s.First != segs[i-1].Last+1) {
			return nil, unusable("the sealed segments do not line up at %s", s.Path)
		}
	}
	v := &treeView{segs: segs, known: map[node]tlog.Hash{}, loaded: map[int]bool{}, records: map[int][]tlog.Hash{}, want: want}
	last := segs[len(segs)-1]
	t, err := v.loadTree(len(segs) - 1)
	if err != nil {
		return nil, err
	}
	v.sealed = last.Last
	rec := &treeRecorder{b: newTreeBuilderAt(v.sealed, t.frontier()), keep: want + 1}
	if capture {
		rec.b.formed = func(n treeNode) { v.known[n.node] = n.hash }
	}
	head := Head{Seq: last.Last, Hash: t.head}
	sum := Summary{Entries: head.Seq, Head: head}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("verify ledger: %w", err)
	default:
		defer f.Close()
		if sum, err = verifyFrom(f, head, rec, nil); err != nil {
			return nil, fmt.Errorf("ledger %s: %w", path, err)
		}
	}
	v.size, v.root, v.line = sum.Entries, rec.b.root(), rec.kept
	return v, nil
}

// loadTree reads segment i's tree file, checks it against the segment
// (its name, and its last entry, read from the tail) and adds its nodes to
// the known ones.
func (v *treeView) loadTree(i int) (segmentTree, error) {
	s := v.segs[i]
	data, err := os.ReadFile(s.TreePath())
	if err != nil {
		return segmentTree{}, unusable("%v", err)
	}
	t, err := parseTree(data)
	if err != nil {
		return t, unusable("%s: %v", s.TreePath(), err)
	}
	if t.first != s.First || t.size != s.Last {
		return t, unusable("%s is of entries %d to %d, its segment of %d to %d", s.TreePath(), t.first, t.size, s.First, s.Last)
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return t, unusable("%v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return t, unusable("%v", err)
	}
	head, err := readTailHead(f, fi.Size())
	if err != nil || head.Seq != s.Last || head.Hash != t.head {
		return t, unusable("%s does not end with the entry %s says (%d, %s)", s.Path, s.TreePath(), t.size, t.head)
	}
	if !v.loaded[i] {
		for _, n := range t.nodes {
			v.known[n.node] = n.hash
		}
		v.loaded[i] = true
	}
	return t, nil
}

// segmentOf returns the index of the sealed segment that holds record r
// (0-based).
func (v *treeView) segmentOf(r int64) int {
	return sort.Search(len(v.segs), func(i int) bool { return v.segs[i].Last > r })
}

// recordHashes hashes the records of sealed segment i, keeping the wanted
// line when it is there.
func (v *treeView) recordHashes(i int) ([]tlog.Hash, error) {
	if hs, ok := v.records[i]; ok {
		return hs, nil
	}
	s := v.segs[i]
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, unusable("%v", err)
	}
	b := newTreeBuilder()
	hs := make([]tlog.Hash, 0, s.Last-s.First+1)
	for rest := data; len(rest) > 0; {
		n := bytes.IndexByte(rest, '\n')
		if n < 0 {
			return nil, unusable("%s ends without a newline", s.Path)
		}
		if s.First-1+int64(len(hs)) == v.want {
			v.line = bytes.Clone(rest[:n])
		}
		hs = append(hs, b.recordHash(rest[:n]))
		rest = rest[n+1:]
	}
	if int64(len(hs)) != s.Last-s.First+1 {
		return nil, unusable("%s has %d lines, its name says %d", s.Path, len(hs), s.Last-s.First+1)
	}
	v.records[i] = hs
	return hs, nil
}

// hash returns the hash of node n: known (a tree file's, or the active
// part's), or computed from the records of the one segment that holds it.
func (v *treeView) hash(n node) (tlog.Hash, error) {
	if h, ok := v.known[n]; ok {
		return h, nil
	}
	if n.hi() > v.sealed {
		return tlog.Hash{}, fmt.Errorf("ledger tree: node %d %d is not in the ledger's %d entries", n.level, n.index, v.size)
	}
	if len(v.segs) == 0 {
		return tlog.Hash{}, unusable("node %d %d is in the sealed segments, which are not at hand", n.level, n.index)
	}
	i := v.segmentOf(n.hi() - 1)
	s := v.segs[i]
	if n.lo() < s.First-1 {
		// It spans the segment's start: its tree file holds it.
		if _, err := v.loadTree(i); err != nil {
			return tlog.Hash{}, err
		}
		if h, ok := v.known[n]; ok {
			return h, nil
		}
		return tlog.Hash{}, unusable("%s lacks node %d %d", s.TreePath(), n.level, n.index)
	}
	hs, err := v.recordHashes(i)
	if err != nil {
		return tlog.Hash{}, err
	}
	b := newTreeBuilder()
	for _, h := range hs[n.lo()-(s.First-1) : n.hi()-(s.First-1)] {
		b.addLeaf(h)
	}
	h := b.root()
	v.known[n] = h
	return h, nil
}

// ReadHashes implements tlog.HashReader.
func (v *treeView) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		level, n := tlog.SplitStoredHashIndex(x)
		h, err := v.hash(node{level: level, index: n})
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// proveFromTrees is Prove through a treeView.
func proveFromTrees(path, origin string, seq int64) (Proof, TreeHead, error) {
	v, err := openTreeView(path, seq-1, true)
	if err != nil {
		return Proof{}, TreeHead{}, err
	}
	if seq < 1 || seq > v.size {
		return Proof{}, TreeHead{}, fmt.Errorf("prove: seq %d is not in the ledger, which holds entries 1 to %d", seq, v.size)
	}
	if seq <= v.sealed {
		if _, err := v.recordHashes(v.segmentOf(seq - 1)); err != nil {
			return Proof{}, TreeHead{}, err
		}
	}
	hashes, err := tlog.ProveRecord(v.size, seq-1, v)
	if err != nil {
		return Proof{}, TreeHead{}, err
	}
	cp := TreeHead{Origin: origin, Size: v.size, Root: v.root}
	return Proof{Seq: seq, Entry: string(v.line), Checkpoint: cp.Text(), Hashes: hashes}, cp, nil
}
