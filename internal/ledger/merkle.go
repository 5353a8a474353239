package ledger

import (
	"crypto/sha256"
	"hash"
	"math/bits"
	"slices"

	"golang.org/x/mod/sumdb/tlog"
)

// The ledger as a transparency log (DESIGN §4.13): record n (0-based) is
// line n+1 of the ledger as written, without its newline, and the tree is
// RFC 6962's Merkle tree over those records, as golang.org/x/mod/sumdb/tlog
// computes it. tlog keeps every stored hash of the tree; treeBuilder
// computes the same root streaming, in O(log n) memory, so a checkpoint of
// a million entries costs one pass over the file and no more memory than a
// verify.

// treeBuilder computes the RFC 6962 tree hash of records added in order.
type treeBuilder struct {
	// stack holds the roots of perfect subtrees, largest first; sizes
	// their leaf counts (decreasing powers of two).
	stack []tlog.Hash
	sizes []int64
	n     int64
	h     hash.Hash
}

func newTreeBuilder() *treeBuilder { return &treeBuilder{h: sha256.New()} }

// addRecord adds the next record's data.
func (b *treeBuilder) addRecord(data []byte) {
	b.addLeaf(b.recordHash(data))
}

// recordHash is tlog.RecordHash without its allocation per call.
func (b *treeBuilder) recordHash(data []byte) tlog.Hash {
	var h tlog.Hash
	b.h.Reset()
	b.h.Write([]byte{0})
	b.h.Write(data)
	b.h.Sum(h[:0])
	return h
}

// addLeaf adds the next record by its hash.
func (b *treeBuilder) addLeaf(h tlog.Hash) {
	b.stack = append(b.stack, h)
	b.sizes = append(b.sizes, 1)
	b.n++
	for k := len(b.stack); k >= 2 && b.sizes[k-1] == b.sizes[k-2]; k-- {
		b.stack[k-2] = tlog.NodeHash(b.stack[k-2], b.stack[k-1])
		b.sizes[k-2] *= 2
		b.stack, b.sizes = b.stack[:k-1], b.sizes[:k-1]
	}
}

// root returns the tree hash of the records added so far: the perfect
// subtrees folded from the right, which is RFC 6962's MTH.
func (b *treeBuilder) root() tlog.Hash {
	if b.n == 0 {
		return tlog.Hash(sha256.Sum256(nil))
	}
	r := b.stack[len(b.stack)-1]
	for i := len(b.stack) - 2; i >= 0; i-- {
		r = tlog.NodeHash(b.stack[i], r)
	}
	return r
}

// span is a range [lo, hi) of record indexes.
type span struct{ lo, hi int64 }

// proofSpans returns the ranges whose tree hashes make the RFC 6962
// inclusion proof of record n in a tree of size t, in proof order (the
// sibling nearest the leaf first), as tlog.CheckRecord reads them.
func proofSpans(n, t int64) []span {
	var out []span
	lo, hi := int64(0), t
	var top []span // collected from the root down
	for hi-lo > 1 {
		k := int64(1) << (bits.Len64(uint64(hi-lo-1)) - 1) // largest power of two < hi-lo
		if n < lo+k {
			top = append(top, span{lo + k, hi})
			hi = lo + k
		} else {
			top = append(top, span{lo, lo + k})
			lo = lo + k
		}
	}
	for i := len(top) - 1; i >= 0; i-- {
		out = append(out, top[i])
	}
	return out
}

// proofBuilder computes an inclusion proof of record n in a tree of size
// t from the records streamed in order, holding one subtree at a time.
type proofBuilder struct {
	n, t   int64
	spans  []span // in record order
	order  []int  // order[i] is spans[i]'s place in the proof
	proof  tlog.RecordProof
	cur    int // index in spans of the span being built
	b      *treeBuilder
	all    *treeBuilder
	leaf   tlog.Hash
	record []byte
	i      int64
}

func newProofBuilder(n, t int64) *proofBuilder {
	ps := proofSpans(n, t)
	p := &proofBuilder{n: n, t: t, proof: make(tlog.RecordProof, len(ps)), b: newTreeBuilder(), all: newTreeBuilder()}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(ps[a].lo - ps[b].lo) })
	for _, i := range idx {
		p.spans = append(p.spans, ps[i])
		p.order = append(p.order, i)
	}
	return p
}

// add takes the next record.
func (p *proofBuilder) add(data []byte) {
	h := p.all.recordHash(data)
	p.all.addLeaf(h)
	i := p.i
	p.i++
	if i == p.n {
		p.leaf, p.record = h, append([]byte(nil), data...)
		return
	}
	if p.cur >= len(p.spans) || i >= p.t {
		return
	}
	p.b.addLeaf(h)
	if s := p.spans[p.cur]; i+1 == s.hi {
		p.proof[p.order[p.cur]] = p.b.root()
		p.b = newTreeBuilder()
		p.cur++
	}
}

// treeRecorder adds verified lines to a tree and keeps its root at the
// sizes asked for.
type treeRecorder struct {
	b     *treeBuilder
	want  map[int64]bool
	roots map[int64]tlog.Hash
}

func (r *treeRecorder) add(line []byte) {
	r.b.addRecord(line)
	if r.want[r.b.n] {
		r.roots[r.b.n] = r.b.root()
	}
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
// n entries for each size in at (for checking older checkpoints).
func VerifyTree(path string, at ...int64) (TreeSummary, error) {
	rec := &treeRecorder{b: newTreeBuilder(), want: map[int64]bool{}, roots: map[int64]tlog.Hash{}}
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
