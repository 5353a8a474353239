package ledger

import (
	"bufio"
	"fmt"
	"hash/maphash"
	"io"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// maxWindowLines is how many entries of one segment ReadVerifiedWindow
// keeps from its verification for fn: about 150 bytes each and the
// strings of their run and workflow, 5 MiB or so at most. A sealed segment
// of 8 MiB (SegmentLimit) holds fewer unless its lines are shorter than
// 256 bytes; the entries of a longer part (a flat ledger's whole window)
// are read again from their lines.
const maxWindowLines = 1 << 15

// windowLines are the entries a verification read of a segment, for
// ReadVerifiedWindow to hand to fn once the segment verified, so that it
// parses no line twice: the checkers, which check each line in parallel,
// read its WindowEntry from what their check found (entryOf), and the
// orderer keeps them in order, up to max of them.
//
// fn is then given each entry with its line read again from the segment
// (fn may need more of it than the entry has), which must be the line
// verified: the same length and the same 64-bit hash (maphash, with the
// pipeline's seed), else the segment changed while it was read.
type windowLines struct {
	max   int
	lines []windowLine
	seed  maphash.Seed
	// spare are the batches of the last segment's verification, for the
	// next segment's (pipeline.spare).
	spare []*batch
}

// windowLine is one verified line's entry (its Line not set), the
// line's length and its hash.
type windowLine struct {
	WindowEntry
	size int
	sum  uint64
}

// start begins the collection of a segment's entries, hashing the lines
// with seed.
func (w *windowLines) start(seed maphash.Seed) {
	clear(w.lines) // let go of the last segment's strings
	w.lines, w.seed = w.lines[:0], seed
}

// add keeps the entries of the next good lines, up to w.max in all.
func (w *windowLines) add(lines []windowLine) {
	n := min(len(lines), w.max-len(w.lines))
	if n > 0 {
		w.lines = append(w.lines, lines[:n]...)
	}
}

// read calls fn with the entries of the lines of r, the segment name from
// its byte from, that were recorded at or after since: the lines the
// verification read, which read their entries.
func (w *windowLines) read(r io.Reader, name string, from int64, since time.Time, fn func(WindowEntry) error) error {
	sr := &segmentReader{name: name, br: bufio.NewReaderSize(r, 64<<10), offset: from, seeked: from > 0}
	for i := 0; ; i++ {
		line, ok, err := sr.nextLine()
		if err != nil {
			return err
		}
		if !ok {
			if i < len(w.lines) {
				return fmt.Errorf("ledger %s: %d lines were verified, but %d are left to read: the segment changed while it was read; read it again", name, len(w.lines), i)
			}
			return nil
		}
		var e WindowEntry
		if i < len(w.lines) {
			l := &w.lines[i]
			if len(line) != l.size || maphash.Bytes(w.seed, line) != l.sum {
				return fmt.Errorf("ledger %s: %s is not the line verified: the segment changed while it was read; read it again", name, sr.at(line))
			}
			e, e.Line = l.WindowEntry, line
		} else if e, err = sr.entry(line); err != nil { // past w.max
			return err
		}
		if e.Time.Before(since) {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// entryOf is windowEntry of a line that parseLine checked (info): it
// reads the members where the check found them, parsing only their
// values. The line is canonical, so that its members are those
// windowEntry finds, and of the types and forms windowEntry asks of them.
func entryOf(line []byte, info *lineInfo) WindowEntry {
	m := &info.members
	ts, _ := stringBody(line, m.time)
	t, _ := time.Parse(timeLayout, bytesString(ts)) // isUTCTime: it parses
	workflow, _ := stringBody(line, m.workflow)
	e := WindowEntry{Seq: info.seq, Time: t, Kind: kindOf(bytesString(info.kind)), Run: string(info.run), Workflow: string(workflow)}
	for _, t := range [...]struct {
		key string
		m   member
	}{{memberTokens, m.tokens}, {memberCostUSD, m.costUSD}, {memberTokensUnknown, m.tokensUnknown}, {memberCostUnknown, m.costUnknown}} {
		if t.m.found {
			e.total(t.key, gjson.Parse(bytesString(line[t.m.val:t.m.end])))
		}
	}
	return e
}

// bytesString is b as a string without a copy, for reading: b must not
// change while the string is in use, nor the string outlive b's use.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
