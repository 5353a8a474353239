package ledger

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// Summary describes a valid ledger.
type Summary struct {
	// Entries is the number of entries.
	Entries int64
	// Head is the last entry's seq and hash; zero for an empty ledger.
	Head Head
}

// Verify reads a ledger to its end and checks every line: canonical JSON,
// the common members, seq one more than the previous, prev the previous
// entry's hash, hash the hash of the line, a newline at the end. On the first
// bad line it returns a *VerifyError naming the line and why; a failure to
// read returns another error.
//
// Verify streams: its memory is bounded by numBatches buffers of 1 MiB
// (more only for lines longer than that, up to MaxLineSize), whatever the
// ledger's size. Reading and checking run on the calling goroutine while a
// second goroutine hashes the lines already checked.
func Verify(r io.Reader) (Summary, error) {
	return verifyFrom(r, Head{}, nil)
}

// verifyFrom verifies a stream of entries that continues the ledger whose
// head is head: its first entry must have seq head.Seq+1 and prev
// head.Hash. Line numbers count from head.Seq, so they stay the line
// numbers of the whole ledger.
func verifyFrom(r io.Reader, head Head, tree *treeRecorder) (Summary, error) {
	p := newPipeline(tree)
	defer p.close()
	return p.verify(r, head)
}

const (
	firstChunk = 64 << 10 // the first read: small ledgers need no more
	chunkSize  = 1 << 20  // later reads
	numBatches = 6        // batches in flight between the stages
)

// batch is a buffer of complete lines on its way through the stages; or,
// with end set, the mark that a stream's lines are all sent.
type batch struct {
	buf  []byte
	jobs []hashJob
	end  bool
	bad  *VerifyError // on the end mark: the hasher's finding
}

// hashJob is one checked line waiting for its hash to be compared.
type hashJob struct {
	line             int64
	start, end       int // the line in batch.buf, newline excluded
	cutStart, cutEnd int // the hash member, relative to start
	want             int // offset of the claimed hash's hex digits, relative to start
}

// pipeline is the verifier's stages, made once for a whole ledger however
// many files it has: the caller reads and checks lines into batches; the
// hasher compares each line's hash with the one it claims; with a tree,
// a third stage adds the hashed lines to it, so that the two hashes of a
// line (the entry's and the Merkle leaf's) are computed on different
// goroutines while the next lines are read and parsed.
type pipeline struct {
	pool    chan *batch // batches the last stage is done with
	batches int         // batches made so far, at most numBatches
	work    chan *batch // to the hasher
	done    chan *VerifyError
	stop    atomic.Bool // set by the hasher when it found a bad line
	tree    *treeRecorder
}

// newPipeline starts the stages; close ends them.
func newPipeline(tree *treeRecorder) *pipeline {
	p := &pipeline{
		pool: make(chan *batch, numBatches),
		work: make(chan *batch, numBatches),
		done: make(chan *VerifyError),
		tree: tree,
	}
	next := p.pool
	if tree != nil {
		toTree := make(chan *batch, numBatches)
		go addBatches(toTree, p.pool, p.done, tree)
		next = toTree
	}
	go hashBatches(p.work, next, p.done, &p.stop, tree != nil)
	return p
}

func (p *pipeline) close() { close(p.work) }

// verify verifies one stream through the pipeline, as verifyFrom does; it
// returns once every stage is done with the stream's lines.
func (p *pipeline) verify(r io.Reader, head Head) (Summary, error) {
	p.stop.Store(false)
	v := verifier{p: p, r: r, seq: head.Seq, lines: head.Seq}
	copy(v.prevHash[:], head.Hash)
	bad, err := v.read()
	p.work <- &batch{end: true}
	if herr := <-p.done; herr != nil {
		return Summary{}, herr // an earlier line than any the reader found
	}
	if bad != nil {
		return Summary{}, bad
	}
	if err != nil {
		return Summary{}, fmt.Errorf("read ledger: %w", err)
	}
	s := Summary{Entries: v.seq}
	if v.seq > 0 {
		s.Head = Head{Seq: v.seq, Hash: string(v.prevHash[:])}
	}
	return s, nil
}

type verifier struct {
	p   *pipeline
	r   io.Reader
	eof bool

	lines    int64                 // lines read so far
	seq      int64                 // last good entry's seq
	prevHash [2 * sha256.Size]byte // last good entry's claimed hash
}

// read reads and checks lines, handing each checked batch to the hasher.
// It stops at the first bad line or at the end of the input.
func (v *verifier) read() (*VerifyError, error) {
	work := v.p.work
	cur := v.p.nextBatch(firstChunk)
	n := 0 // bytes of data in cur.buf
	for {
		if v.p.stop.Load() {
			work <- cur
			return nil, nil // the hasher reports the bad line
		}
		if n == len(cur.buf) { // a full buffer without a newline
			if n > MaxLineSize {
				work <- cur
				return newLineError(ProblemTooLong, "the line is longer than %d bytes", MaxLineSize).at(v.lines + 1), nil
			}
			grown := make([]byte, min(2*len(cur.buf), MaxLineSize+1))
			copy(grown, cur.buf[:n])
			cur.buf = grown
		}
		m, err := io.ReadFull(v.r, cur.buf[n:])
		n += m
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			v.eof = true
		case err != nil:
			work <- cur
			return nil, err
		}

		p, bad := v.checkLines(cur, n)
		if bad != nil || v.eof {
			if bad == nil && p < n {
				bad = newLineError(ProblemTorn, "the last line has no trailing newline: the write that added it was cut off; remove the line (the ledger before it is intact)").at(v.lines + 1)
			}
			work <- cur
			return bad, nil
		}
		if p == 0 {
			continue // no complete line yet: grow and read more
		}
		next := v.p.nextBatch(chunkSize)
		if carry := n - p; carry >= len(next.buf) {
			next.buf = make([]byte, len(cur.buf))
		}
		n = copy(next.buf, cur.buf[p:n])
		work <- cur
		cur = next
	}
}

// nextBatch returns an empty batch: a new one of size bytes while fewer
// than numBatches exist, else the next one the last stage gives back.
func (p *pipeline) nextBatch(size int) *batch {
	var b *batch
	select {
	case b = <-p.pool:
	default:
		if p.batches < numBatches {
			p.batches++
			return &batch{buf: make([]byte, size)}
		}
		b = <-p.pool
	}
	b.jobs = b.jobs[:0]
	if len(b.buf) < size {
		b.buf = make([]byte, size)
	}
	return b
}

// checkLines checks the complete lines in cur.buf[:n], queues their hash
// jobs, and returns the offset after the last complete line. A line never
// exceeds MaxLineSize here: read caps the buffer at MaxLineSize+1 bytes.
func (v *verifier) checkLines(cur *batch, n int) (int, *VerifyError) {
	data := cur.buf[:n]
	p := 0
	for {
		i := bytes.IndexByte(data[p:], '\n')
		if i < 0 {
			return p, nil
		}
		v.lines++
		line := data[p : p+i]
		info, lerr := parseLine(line)
		if lerr == nil {
			lerr = v.follows(&info)
		}
		if lerr != nil {
			if lerr.problem == ProblemNotJSON && p+i+1 == n && v.atEOF() {
				lerr = newLineError(ProblemTrailingGarbage, "trailing garbage after the last entry: %s; remove it", lerr.reason)
			}
			return p, lerr.at(v.lines)
		}
		cur.jobs = append(cur.jobs, hashJob{
			line: v.lines, start: p, end: p + i,
			cutStart: info.cutStart, cutEnd: info.cutEnd,
			want: info.members.hash.val + 1,
		})
		v.seq = info.seq
		copy(v.prevHash[:], info.hash)
		p += i + 1
	}
}

// follows checks that a parsed line continues the chain read so far.
func (v *verifier) follows(info *lineInfo) *lineError {
	if info.seq != v.seq+1 {
		if v.seq == 0 {
			return newLineError(ProblemSeq, "seq is %d, want 1 for the first entry", info.seq)
		}
		return newLineError(ProblemSeq, "seq is %d, want %d (the previous entry's seq plus one): an entry was deleted, duplicated or moved", info.seq, v.seq+1)
	}
	if v.seq == 0 && string(info.prev) != ZeroHash || v.seq > 0 && !bytes.Equal(info.prev, v.prevHash[:]) {
		want := []byte(ZeroHash)
		if v.seq > 0 {
			want = v.prevHash[:]
		}
		return newLineError(ProblemPrev, "prev is %s, want %s (the previous entry's hash): the chain is broken here", info.prev, want)
	}
	return nil
}

// atEOF reports whether the input has no more bytes. It may consume one
// byte, so it is only asked when reading stops anyway.
func (v *verifier) atEOF() bool {
	if !v.eof {
		var one [1]byte
		n, err := io.ReadFull(v.r, one[:])
		v.eof = n == 0 && errors.Is(err, io.EOF)
	}
	return v.eof
}

// hashBatches hashes every queued line and compares it with the hash the
// line claims. On a mismatch it sets stop, so that the reader gives up
// early. At a stream's end mark it reports the stream's first mismatch (or
// nil): on done, or, when there is a tree stage, through it. Batches go on
// to next: the tree stage, or back to the pool.
func hashBatches(work <-chan *batch, next chan<- *batch, done chan<- *VerifyError, stop *atomic.Bool, toTree bool) {
	if toTree {
		defer close(next)
	}
	var bad *VerifyError
	h := sha256.New()
	var sum [sha256.Size]byte
	for b := range work {
		if b.end {
			if toTree {
				b.bad = bad
				next <- b
			} else {
				done <- bad
			}
			bad = nil
			continue
		}
		for k, j := range b.jobs {
			if bad != nil {
				b.jobs = b.jobs[:k] // the tree stage adds only good lines
				break
			}
			line := b.buf[j.start:j.end]
			sumLine(h, line, j.cutStart, j.cutEnd, &sum)
			want := line[j.want : j.want+2*sha256.Size]
			if !hashMatches(&sum, want) {
				bad = newLineError(ProblemHash, "hash is %s, but the line hashes to %x: the entry was changed after it was written", want, sum).at(j.line)
				stop.Store(true)
				b.jobs = b.jobs[:k]
				break
			}
		}
		next <- b
	}
}

// addBatches adds every line of the batches the hasher passes on to the
// tree, and reports the hasher's finding at each stream's end mark.
func addBatches(work <-chan *batch, pool chan<- *batch, done chan<- *VerifyError, tree *treeRecorder) {
	for b := range work {
		if b.end {
			done <- b.bad
			continue
		}
		for _, j := range b.jobs {
			tree.add(b.buf[j.start:j.end])
		}
		pool <- b
	}
}
