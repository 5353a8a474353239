package ledger

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/mod/sumdb/tlog"
)

// The ledger as a transparency log (architecture §4.13): record n (0-based) is
// line n+1 of the ledger as written, without its newline, and the tree is
// RFC 6962's Merkle tree over those records, as golang.org/x/mod/sumdb/tlog
// computes it. tlog keeps every stored hash of the tree; treeBuilder
// computes the same root streaming, in O(log n) memory, so verifying a
// million entries against a checkpoint costs one pass over the files and
// no more memory than a verify. A checkpoint of the head and a proof need
// not even that: each sealed segment's tree file (tree.go) holds the
// hashes the segments before contribute, and treeView (treeview.go) serves
// tlog's stored hashes from those files and the segments around an entry.

// node names a perfect subtree of the tree as tlog does: the one at level
// whose leaves are records [index<<level, (index+1)<<level).
type node struct {
	level int
	index int64
}

// lo and hi are the node's first record and the one after its last.
func (n node) lo() int64 { return n.index << n.level }
func (n node) hi() int64 { return (n.index + 1) << n.level }

// treeNode is a node with its hash.
type treeNode struct {
	node
	hash tlog.Hash
}

// frontierOf lists the nodes whose hashes make the tree of size records:
// one perfect subtree per set bit of size, largest (leftmost) first. They
// are what a treeBuilder holds after size records.
func frontierOf(size int64) []node {
	var out []node
	var lo int64
	for level := 62; level >= 0; level-- {
		if size&(1<<level) != 0 {
			out = append(out, node{level: level, index: lo >> level})
			lo += 1 << level
		}
	}
	return out
}

// treeBuilder computes the RFC 6962 tree hash of records added in order.
type treeBuilder struct {
	// stack holds the perfect subtrees of the records so far, largest
	// first: frontierOf(n).
	stack []treeNode
	n     int64
	h     hash.Hash
	sum   [sha256.Size]byte // recordHash's scratch
	// formed, when set, is called with every node the builder makes,
	// leaves included.
	formed func(treeNode)
}

func newTreeBuilder() *treeBuilder { return &treeBuilder{h: sha256.New()} }

// newTreeBuilderAt continues a tree of size records whose frontier
// (frontierOf(size), with hashes) is given.
func newTreeBuilderAt(size int64, frontier []treeNode) *treeBuilder {
	return &treeBuilder{h: sha256.New(), n: size, stack: slices.Clone(frontier)}
}

// addRecord adds the next record's data.
func (b *treeBuilder) addRecord(data []byte) {
	b.addLeaf(b.recordHash(data))
}

// recordHash is tlog.RecordHash without its allocation per call.
func (b *treeBuilder) recordHash(data []byte) tlog.Hash {
	return recordHash(b.h, data, &b.sum)
}

// addLeaf adds the next record by its hash.
func (b *treeBuilder) addLeaf(h tlog.Hash) {
	leaf := treeNode{node: node{level: 0, index: b.n}, hash: h}
	b.stack = append(b.stack, leaf)
	b.n++
	if b.formed != nil {
		b.formed(leaf)
	}
	for k := len(b.stack); k >= 2 && b.stack[k-1].level == b.stack[k-2].level; k-- {
		l, r := b.stack[k-2], b.stack[k-1]
		up := treeNode{node: node{level: l.level + 1, index: l.index / 2}, hash: tlog.NodeHash(l.hash, r.hash)}
		b.stack[k-2] = up
		b.stack = b.stack[:k-1]
		if b.formed != nil {
			b.formed(up)
		}
	}
}

// root returns the tree hash of the records added so far: the perfect
// subtrees folded from the right, which is RFC 6962's MTH.
func (b *treeBuilder) root() tlog.Hash {
	if b.n == 0 {
		return tlog.Hash(sha256.Sum256(nil))
	}
	r := b.stack[len(b.stack)-1].hash
	for i := len(b.stack) - 2; i >= 0; i-- {
		r = tlog.NodeHash(b.stack[i].hash, r)
	}
	return r
}

// treeRecorder adds verified lines to a tree and keeps its root at the
// sizes asked for.
type treeRecorder struct {
	b     *treeBuilder
	want  map[int64]bool
	roots map[int64]tlog.Hash
	// keep is the number of records after which to keep the last one's
	// line in kept (0: none).
	keep int64
	kept []byte
	// col gathers the tree file of the sealed segment being added;
	// write makes endSegment write a missing tree file.
	col   *treeCollector
	write bool
}

// addLeaves adds the records of the lines that begin data (each ending
// with a newline) by their leaf hashes, one per line.
func (r *treeRecorder) addLeaves(leaves []tlog.Hash, data []byte) {
	first := r.b.n
	for _, h := range leaves {
		r.b.addLeaf(h)
		if r.want[r.b.n] {
			r.roots[r.b.n] = r.b.root()
		}
	}
	if first < r.keep && r.keep <= r.b.n {
		for range r.keep - first - 1 {
			data = data[bytes.IndexByte(data, '\n')+1:]
		}
		r.kept = bytes.Clone(data[:bytes.IndexByte(data, '\n')])
	}
}

// startSegment is called before the records of the sealed segment that
// starts with entry first are added.
func (r *treeRecorder) startSegment(first int64) {
	r.col = &treeCollector{first: first}
	r.b.formed = r.col.formed
}

// endSegment is called after the records of sealed segment s, ending with
// head, were added: its tree file must be what they make. A missing one
// is written when r.write is set, as far as it can be: a tree file is
// derived data, so failing to write one (a read-only clone) is no error.
func (r *treeRecorder) endSegment(s Segment, head Head) error {
	want := r.col.file(r.b, head.Hash).marshal()
	r.col, r.b.formed = nil, nil
	have, err := os.ReadFile(s.TreePath())
	switch {
	case errors.Is(err, os.ErrNotExist):
		if r.write {
			writeTree(s.TreePath(), want)
		}
		return nil
	case err != nil:
		return fmt.Errorf("verify ledger: %w", err)
	case bytes.Equal(have, want):
		return nil
	}
	why := "its hashes are not the segment's: it was changed after the segment was sealed"
	if t, err := parseTree(have); err != nil {
		why = "it is not a valid tree file: " + err.Error()
	} else if t.first != s.First || t.size != s.Last {
		why = fmt.Sprintf("it is of entries %d to %d, not %d to %d", t.first, t.size, s.First, s.Last)
	} else if t.head != head.Hash {
		why = fmt.Sprintf("it says the segment ends with hash %s, but it ends with %s: the segment was rewritten after it was sealed, or the tree file is of another ledger", t.head, head.Hash)
	}
	return fmt.Errorf("ledger %s: %w", s.TreePath(), newLineError(ProblemTree,
		"the tree file of segment %s does not fit it: %s; remove it and run `optr ledger checkpoint` to write it again", filepath.Base(s.Path), why).at(s.Last))
}

// TreeSummary is a verified ledger with its Merkle tree hashes.
type TreeSummary struct {
	Summary
	// Root is the tree hash of the whole ledger.
	Root tlog.Hash
	// At holds the tree hash of the ledger's first n entries for each size
	// n asked for that the ledger reaches.
	At map[int64]tlog.Hash
}

// VerifyTree verifies the ledger at path as VerifyFile does and, in the
// same pass, computes its Merkle tree hash, and the tree hash of its first
// n entries for each size in at (for checking older checkpoints). Each
// sealed segment's tree file, when there is one, must be what the
// segment makes; a tree file that differs, or has no segment, is a
// *VerifyError (ProblemTree) naming it.
func VerifyTree(path string, at ...int64) (TreeSummary, error) {
	return verifyTree(path, false, at)
}

// BuildTrees is VerifyTree that also writes the tree files the sealed
// segments lack (a ledger sealed before tree files existed, or one whose
// segments were written by other means), so that checkpoints and proofs
// need no longer hash the whole ledger. A file it cannot write is left
// out: readers do without it.
func BuildTrees(path string) (TreeSummary, error) {
	return verifyTree(path, true, nil)
}

func verifyTree(path string, write bool, at []int64) (TreeSummary, error) {
	rec := &treeRecorder{b: newTreeBuilder(), want: map[int64]bool{}, roots: map[int64]tlog.Hash{}, write: write}
	for _, n := range at {
		rec.want[n] = true
	}
	sum, err := verifyFile(path, rec)
	if err != nil {
		return TreeSummary{Summary: sum}, err
	}
	if rec.want[0] {
		rec.roots[0] = newTreeBuilder().root()
	}
	return TreeSummary{Summary: sum, Root: rec.b.root(), At: rec.roots}, nil
}
