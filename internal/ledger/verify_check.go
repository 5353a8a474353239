package ledger

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"hash/maphash"
	"runtime"
	"sync/atomic"

	"golang.org/x/mod/sumdb/tlog"
)

// checkBatches checks the batches on work, each on its own, and passes
// them on to the orderer. Several run at once, one per core: a line's
// checks need nothing from another batch but the previous line's seq and
// hash, which the orderer compares at the joins.
func checkBatches(work <-chan *batch, checked chan<- *batch, stop *atomic.Bool, c checker) {
	for b := range work {
		if !b.end {
			c.check(b, stop.Load())
		}
		checked <- b
		// The send readied the orderer on this core, and the orderer
		// readies the reader when it gives a batch back: let them run
		// now, not once the scheduler preempts this checker after its
		// time slice (10 ms) while the other core is checking too: the
		// other checker would soon wait for a batch.
		runtime.Gosched()
	}
}

// checker holds one checker goroutine's hashes.
type checker struct {
	entry, leaf hash.Hash
	sum         [sha256.Size]byte
	tree        bool
	// runs: note the run and outcome entries (batchResult.refs), hashing
	// run ids with seed, the pipeline's.
	runs bool
	// window: read each good line's window entry (batchResult.window),
	// with the line's hash with seed.
	window bool
	seed   maphash.Seed
}

// runHash is the key of a run id in the orderer's set of runs.
func (c *checker) runHash(run []byte) uint64 { return maphash.Bytes(c.seed, run) }

// check checks every line of b in order, as far as b alone can tell: the
// line's canonical form and members, seq and prev against the line before
// it (the first line's against the batch before, by the orderer), and its
// hash; and computes its Merkle leaf hash. It stops at the first bad line.
// A batch of a stream that failed already is only marked skipped.
func (c *checker) check(b *batch, skip bool) {
	r := &b.batchResult
	*r = batchResult{leaves: r.leaves[:0], refs: r.refs[:0], window: r.window[:0], skipped: skip}
	if skip {
		return
	}
	data := b.buf[:b.n]
	var prevSeq int64 // the line before's seq and hash
	var prevHash []byte
	for p := 0; p < len(data); {
		// The line ends at its newline: at the first byte that is not
		// plain when the line is, else further on. A batch holds complete
		// lines, so there is one.
		rest := data[p:]
		plain := plainPrefix(rest)
		i := plain
		if rest[i] != '\n' {
			i += bytes.IndexByte(rest[i:], '\n')
		}
		line := rest[:i]
		p += i + 1
		info, lerr := parsePlainLine(line, plain == i)
		if lerr != nil {
			if lerr.problem == ProblemNotJSON && b.final && p == len(data) {
				lerr = newLineError(ProblemTrailingGarbage, "trailing garbage after the last entry: %s; remove it", lerr.reason)
			}
			r.bad = lerr
			return
		}
		if r.good == 0 {
			r.firstParsed, r.firstSeq = true, info.seq
			copy(r.firstPrev[:], info.prev)
		} else if lerr := chainsOn(prevSeq, prevHash, &info); lerr != nil {
			r.bad = lerr
			return
		}
		sumLine(c.entry, line, info.cutStart, info.cutEnd, &c.sum)
		if !hashMatches(&c.sum, info.hash) {
			r.bad = newLineError(ProblemHash, "hash is %s, but the line hashes to %x: the entry was changed after it was written", info.hash, c.sum)
			return
		}
		if c.tree {
			r.leaves = append(r.leaves, c.leafHash(line))
		}
		if c.window {
			r.window = append(r.window, windowLine{WindowEntry: entryOf(line, &info), size: len(line), sum: maphash.Bytes(c.seed, line)})
		}
		if c.runs {
			switch string(info.kind) {
			case KindRun:
				r.refs = append(r.refs, runRef{key: c.runHash(info.run)})
			case KindOutcome:
				r.refs = append(r.refs, runRef{key: c.runHash(info.run), outcome: true, index: r.good, run: string(info.run)})
			}
		}
		prevSeq, prevHash = info.seq, info.hash
		r.good++
	}
	if r.good > 0 {
		r.lastSeq = prevSeq
		copy(r.lastHash[:], prevHash)
	}
}

// leafPrefix comes before a record's data in its leaf hash (RFC 6962).
var leafPrefix = []byte{0}

// leafHash is tlog.RecordHash without its allocation per call.
func (c *checker) leafHash(data []byte) tlog.Hash {
	return recordHash(c.leaf, data, &c.sum)
}

// recordHash is tlog.RecordHash of data, computed with h (reset and
// reused) into scratch: a Sum into a local escapes.
func recordHash(h hash.Hash, data []byte, scratch *[sha256.Size]byte) tlog.Hash {
	h.Reset()
	h.Write(leafPrefix)
	h.Write(data)
	return tlog.Hash(h.Sum(scratch[:0]))
}

// chainsOn checks that a parsed line continues the entry of seq seq and
// hash prevHash (seq 0: it must be the first entry).
func chainsOn(seq int64, prevHash []byte, info *lineInfo) *lineError {
	if info.seq != seq+1 {
		if seq == 0 {
			return newLineError(ProblemSeq, "seq is %d, want 1 for the first entry", info.seq)
		}
		return newLineError(ProblemSeq, "seq is %d, want %d (the previous entry's seq plus one): an entry was deleted, duplicated or moved", info.seq, seq+1)
	}
	if seq == 0 && string(info.prev) != ZeroHash || seq > 0 && !bytes.Equal(info.prev, prevHash) {
		want := []byte(ZeroHash)
		if seq > 0 {
			want = prevHash
		}
		return newLineError(ProblemPrev, "prev is %s, want %s (the previous entry's hash): the chain is broken here", info.prev, want)
	}
	return nil
}
