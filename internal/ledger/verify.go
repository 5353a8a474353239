package ledger

import (
	"crypto/sha256"
	"hash/maphash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/mod/sumdb/tlog"
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
// entry's hash, hash the hash of the line, a newline at the end, and a run
// entry of its run before each outcome entry ([ProblemOutcome]). On the
// first bad line it returns a [*VerifyError] naming the line and why; a
// failure to read returns another error. It streams, checking batches of
// lines on every core, and its memory does not grow with the ledger.
func Verify(r io.Reader) (Summary, error) {
	return verifyFrom(r, Head{}, nil, nil)
}

// verifyFrom verifies a stream of entries that continues the ledger whose
// head is head: its first entry must have seq head.Seq+1 and prev
// head.Hash. Line numbers count from head.Seq, so they stay the line
// numbers of the whole ledger.
//
// It streams: its memory is bounded by a few batches of 512 KiB per core
// (more only for lines longer than that, up to MaxLineSize), whatever the
// ledger's size. The calling goroutine reads; one checker per core checks
// and hashes whole batches of lines; one goroutine takes the checked
// batches in order, joins each to the one before and reports the first bad
// line, whichever checker found it. Read from the first entry, the orderer
// keeps a 64-bit hash of each run id it passed (8 bytes and a map slot per
// run) to check that an outcome's run came before it.
//
// With window, the checkers also read each good line's WindowEntry from
// what their check found, and the orderer collects them (see
// windowLines).
func verifyFrom(r io.Reader, head Head, tree *treeRecorder, window *windowLines) (Summary, error) {
	p := newPipeline(tree, 1, head.Seq == 0, window)
	defer p.close()
	p.ord.start(head)
	p.stream(r, nil)
	res := <-p.done
	if window != nil { // the window's next segment reuses the batches
		window.spare = p.reclaim()
	}
	if err := res.failure(); err != nil {
		return Summary{}, err
	}
	return res.summary, nil
}

const (
	firstChunk = 64 << 10  // the first read of a stream: small ledgers need no more
	chunkSize  = 512 << 10 // later reads
)

// batch is a buffer of complete lines on its way through the stages; or,
// with end set, the mark that a stream's lines are all sent.
type batch struct {
	id  int64  // the order in which the reader sent it
	buf []byte // the lines are buf[:n], each with its newline
	n   int
	// final: no byte of the stream follows buf[:n] (a bad last line is
	// then trailing garbage, not a bad entry).
	final bool

	// What the checker found (batchResult), or, on an end mark, what the
	// reader found.
	batchResult
	end     bool
	readErr error // on an end mark: reading failed
	// then, on an end mark, runs in the orderer once the stream's lines
	// are all good, with the summary so far; an error it returns ends
	// the pipeline's work as a bad line does.
	then func(Summary) error
}

// batchResult is what checking one batch found.
type batchResult struct {
	skipped bool // the stream had failed already: not checked
	// good is the number of lines, from the first, that are good as far
	// as the batch alone can tell; bad, when set, is what is wrong with
	// the line after them (or, on an end mark, with the line after the
	// stream's last).
	good int
	bad  *lineError
	// The first line's seq and prev (when it parsed: firstParsed), to be
	// joined to the batch before; the last good line's seq and hash.
	firstParsed bool
	firstSeq    int64
	firstPrev   [2 * sha256.Size]byte
	lastSeq     int64
	lastHash    [2 * sha256.Size]byte
	// leaves are the good lines' Merkle leaf hashes, with a tree.
	leaves []tlog.Hash
	// refs are the good lines' run and outcome entries, in order, when
	// the pipeline checks outcomes against runs.
	refs []runRef
	// window are the good lines' window entries, when the pipeline
	// collects them.
	window []windowLine
}

// runRef is a run or outcome entry of a batch: the hash of its run id
// (runHash) and, for an outcome, its line's index in the batch and its
// run id.
type runRef struct {
	key     uint64
	outcome bool
	index   int
	run     string
}

// pipeline is the verifier's stages, made once for a whole ledger however
// many files it has (see Verify): the caller reads lines into batches;
// checkers check and hash them, two hashes a line (the entry's and, with a
// tree, the Merkle leaf's); the orderer joins them up in order, adds the
// leaves to the tree, and reports each stream's first bad line on done.
// A stream continues the one before it: the caller reads the next file
// while the checkers are still at the end of the last one.
type pipeline struct {
	pool    chan *batch // batches the orderer is done with
	batches int         // batches made so far, at most numBatches
	max     int         // numBatches
	work    chan *batch // to the checkers
	checked chan *batch // to the orderer
	done    chan streamResult
	stop    atomic.Bool // set by the orderer when a stream failed: the rest is moot
	nextID  int64
	ord     orderer
	// spare are batches of an earlier pipeline, taken before new ones
	// are made (see reclaim).
	spare []*batch
}

// numCheckers is the number of checker goroutines: one per core.
func numCheckers() int { return max(1, runtime.GOMAXPROCS(0)) }

// numBatches is the number of batches a pipeline keeps: enough for the
// reader to fill one and hold one back, each checker to work on one, and
// the orderer to wait for a slow one while the others go on.
func numBatches() int { return 2*numCheckers() + 3 }

// newPipeline starts the stages for at most streams streams; close ends
// them. With runs, the streams are a ledger from its first entry, and
// each outcome entry must follow a run entry of its run. With window, the
// good lines' window entries are collected into it.
func newPipeline(tree *treeRecorder, streams int, runs bool, window *windowLines) *pipeline {
	checkers := numCheckers()
	n := numBatches()
	p := &pipeline{
		pool:    make(chan *batch, n),
		max:     n,
		work:    make(chan *batch, n),
		checked: make(chan *batch, n+1),
		// Room for every stream's result: the orderer never waits for the
		// caller, who may be reading a later stream.
		done: make(chan streamResult, streams),
		ord:  orderer{tree: tree, window: window, pending: map[int64]*batch{}},
	}
	seed := maphash.MakeSeed()
	if window != nil {
		window.start(seed)
		p.spare, window.spare = window.spare, nil
	}
	if runs {
		p.ord.runs = map[uint64]struct{}{}
	}
	p.ord.stop, p.ord.pool, p.ord.done = &p.stop, p.pool, p.done
	var wg sync.WaitGroup
	for range checkers {
		wg.Go(func() {
			checkBatches(p.work, p.checked, &p.stop, checker{entry: sha256.New(), leaf: sha256.New(), tree: tree != nil, runs: runs, window: window != nil, seed: seed})
		})
	}
	go func() {
		wg.Wait()
		close(p.checked)
	}()
	go p.ord.run(p.checked)
	return p
}

// close ends the stages once the last stream is done.
func (p *pipeline) close() { close(p.work) }

// stream sends the lines of r through the pipeline, continuing the
// stream before, and its end mark with then (see batch). It returns once
// r is read; the stream's result comes on p.done, after the results of
// the streams before it.
func (p *pipeline) stream(r io.Reader, then func(Summary) error) {
	rd := reader{p: p, r: r}
	end := &batch{end: true, then: then}
	end.bad, end.readErr = rd.read()
	p.send(end)
}

// send hands a batch to the checkers, numbered in order.
func (p *pipeline) send(b *batch) {
	b.id = p.nextID
	p.nextID++
	p.work <- b
}

// nextBatch returns an empty batch: a new one of size bytes while fewer
// than p.max exist, else the next one the orderer gives back.
func (p *pipeline) nextBatch(size int) *batch {
	var b *batch
	select {
	case b = <-p.pool:
	default:
		if p.batches < p.max {
			p.batches++
			if n := len(p.spare); n > 0 {
				b, p.spare = p.spare[n-1], p.spare[:n-1]
				break
			}
			return &batch{buf: make([]byte, size)}
		}
		b = <-p.pool
	}
	b.n, b.final = 0, false
	if len(b.buf) < size {
		b.buf = make([]byte, size)
	}
	return b
}

// reclaim returns the pipeline's batches, for another pipeline to take
// (pipeline.spare), once its last stream's result came on p.done: the
// orderer then gave back every batch the reader sent, and the reader
// every batch it did not.
func (p *pipeline) reclaim() []*batch {
	out := make([]*batch, 0, p.batches)
	for range p.batches {
		select {
		case b := <-p.pool:
			out = append(out, b)
		default:
			return out
		}
	}
	return out
}

// release gives back a batch the reader will not send.
func (p *pipeline) release(b *batch) { p.pool <- b }
