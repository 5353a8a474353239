package ledger

import (
	"fmt"
	"sync/atomic"
)

// streamResult is what the orderer found in one stream.
type streamResult struct {
	summary Summary
	bad     *VerifyError
	err     error // reading failed
	thenErr error // the end mark's then failed
}

// failure is the stream's own failure, if any: its first bad line, or
// the failure to read it.
func (r streamResult) failure() error {
	switch {
	case r.bad != nil:
		return r.bad
	case r.err != nil:
		return fmt.Errorf("read ledger: %w", r.err)
	}
	return nil
}

// orderer takes the checked batches in the order the reader sent them,
// whichever checker finished first: it joins each batch to the one before
// (seq and prev of its first line), adds the good lines' leaves to the
// tree, and at a stream's end mark reports the stream's first bad line:
// the first in the file, not the first found.
type orderer struct {
	tree    *treeRecorder
	window  *windowLines     // nil: the window entries are not collected
	pending map[int64]*batch // checked, waiting for an earlier one
	next    int64            // the id of the batch to take next
	stop    *atomic.Bool
	pool    chan<- *batch
	done    chan<- streamResult

	// The streams so far.
	lines    int64 // good lines
	seq      int64 // last good entry's seq
	prevHash [64]byte
	bad      *VerifyError
	failed   bool // a line was bad, or a then failed: join no more
	// runs holds the hashes of the run ids of the run entries so far,
	// when outcomes are checked against them (nil otherwise).
	runs map[uint64]struct{}
}

// start begins the first stream, which continues head; before any batch
// is sent.
func (o *orderer) start(head Head) {
	o.lines, o.seq = head.Seq, head.Seq
	copy(o.prevHash[:], head.Hash)
}

// run takes the batches the checkers pass on until they are all done.
func (o *orderer) run(checked <-chan *batch) {
	for b := range checked {
		o.pending[b.id] = b
		for {
			b, ok := o.pending[o.next]
			if !ok {
				break
			}
			delete(o.pending, o.next)
			o.next++
			o.take(b)
		}
	}
}

// take handles the next batch in order.
func (o *orderer) take(b *batch) {
	if b.end {
		o.done <- o.finish(b)
		return
	}
	if !o.failed && !b.skipped {
		if o.bad = o.join(b); o.bad != nil {
			o.fail()
		}
	}
	o.pool <- b
}

// fail stops the work on the streams: the caller reports the first
// failure and ignores what follows.
func (o *orderer) fail() {
	o.failed = true
	o.stop.Store(true)
}

// join adds a checked batch to the stream, or returns its first bad line.
func (o *orderer) join(b *batch) *VerifyError {
	if b.firstParsed {
		info := lineInfo{seq: b.firstSeq, prev: b.firstPrev[:]}
		if lerr := chainsOn(o.seq, o.prevHash[:], &info); lerr != nil {
			return lerr.at(o.lines + 1)
		}
	}
	if lerr := o.outcomes(b.refs); lerr != nil {
		return lerr
	}
	if o.tree != nil {
		o.tree.addLeaves(b.leaves, b.buf[:b.n])
	}
	if o.window != nil {
		o.window.add(b.window)
	}
	if b.good > 0 {
		o.lines += int64(b.good)
		o.seq, o.prevHash = b.lastSeq, b.lastHash
	}
	if b.bad != nil {
		return b.bad.at(o.lines + 1)
	}
	return nil
}

// outcomes adds a batch's run entries to the runs so far and checks that
// each of its outcome entries follows a run entry of its run (a 64-bit
// hash of the run id: two ids collide once in about 10^19 pairs).
func (o *orderer) outcomes(refs []runRef) *VerifyError {
	if o.runs == nil {
		return nil
	}
	for _, ref := range refs {
		if !ref.outcome {
			o.runs[ref.key] = struct{}{}
			continue
		}
		if _, ok := o.runs[ref.key]; !ok {
			return newLineError(ProblemOutcome, "the outcome entry names run %s, but the ledger holds no run entry of that run before it: an outcome is recorded only for a run optr recorded", clip([]byte(ref.run))).at(o.lines + int64(ref.index) + 1)
		}
	}
	return nil
}

// finish ends a stream at its end mark, which carries the reader's own
// finding: a bad line after the last one sent, or a read error. Either
// counts only when no line before it was bad; then runs only when neither
// is there.
func (o *orderer) finish(end *batch) streamResult {
	res := streamResult{bad: o.bad}
	switch {
	case o.failed:
	case end.bad != nil:
		res.bad = end.bad.at(o.lines + 1)
	case end.readErr != nil:
		res.err = end.readErr
	default:
		res.summary = Summary{Entries: o.seq}
		if o.seq > 0 {
			res.summary.Head = Head{Seq: o.seq, Hash: string(o.prevHash[:])}
		}
		if end.then != nil {
			res.thenErr = end.then(res.summary)
		}
	}
	if res.bad != nil || res.err != nil || res.thenErr != nil {
		o.fail()
	}
	return res
}
