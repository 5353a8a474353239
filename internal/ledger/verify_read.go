package ledger

import (
	"bytes"
	"errors"
	"io"
)

// reader cuts one stream into batches of complete lines for the checkers.
type reader struct {
	p *pipeline
	r io.Reader
}

// read sends every complete line of the stream to the checkers, in
// batches, and returns what it found itself: a line longer than
// MaxLineSize, a last line without its newline, or a read error. It stops
// early when the orderer found a bad line.
//
// A batch is sent only after the next read, which tells whether any byte
// follows it (batch.final).
func (rd *reader) read() (*lineError, error) {
	p := rd.p
	cur := p.nextBatch(firstChunk)
	n := 0 // bytes of data in cur.buf
	var held *batch
	flush := func(final bool) {
		if held != nil {
			held.final = final
			p.send(held)
			held = nil
		}
	}
	for {
		if p.stop.Load() { // the orderer reports the bad line
			if held != nil {
				p.release(held)
			}
			p.release(cur)
			return nil, nil
		}
		if n == len(cur.buf) { // a full buffer without a newline
			if n > MaxLineSize {
				flush(false)
				p.release(cur)
				return newLineError(ProblemTooLong, "the line is longer than %d bytes", MaxLineSize), nil
			}
			grown := make([]byte, min(2*len(cur.buf), MaxLineSize+1))
			copy(grown, cur.buf[:n])
			cur.buf = grown
		}
		m, err := io.ReadFull(rd.r, cur.buf[n:])
		n += m
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			flush(false)
			p.release(cur)
			return nil, err
		}
		flush(eof && n == 0)

		end := bytes.LastIndexByte(cur.buf[:n], '\n') + 1 // after the last complete line
		if eof {
			if end == 0 {
				p.release(cur)
			} else {
				cur.n, cur.final = end, end == n
				p.send(cur)
			}
			if end < n {
				return newLineError(ProblemTorn, "the last line has no trailing newline: the write that added it was cut off; remove the line (the ledger before it is intact)"), nil
			}
			return nil, nil
		}
		if end == 0 {
			continue // no complete line yet: grow and read more
		}
		next := p.nextBatch(chunkSize)
		if carry := n - end; carry >= len(next.buf) {
			next.buf = make([]byte, len(cur.buf))
		}
		cur.n = end
		n = copy(next.buf, cur.buf[end:n])
		held, cur = cur, next
	}
}
