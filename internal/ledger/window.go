package ledger

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/tidwall/gjson"
)

// Store is where a ledger's segments are read from: a checkout (Local) or
// a branch through an API.
type Store interface {
	// Active opens the active segment (ledger.jsonl); a missing one reads
	// as empty.
	Active(ctx context.Context) (io.ReadCloser, error)
	// Sealed lists the sealed segments in seq order; Path is what Open
	// takes.
	Sealed(ctx context.Context) ([]Segment, error)
	// Open opens a sealed segment.
	Open(ctx context.Context, s Segment) (io.ReadCloser, error)
}

// InMemory is a segment held in memory (as an API returns a file), for a
// Store to return from Active or Open: a window's start is found in it by
// bisection, as in a file.
func InMemory(data []byte) io.ReadCloser { return memSegment{bytes.NewReader(data)} }

type memSegment struct{ *bytes.Reader }

func (memSegment) Close() error { return nil }

// Local is the Store of the ledger whose active segment is the file at
// its path. Its segments are streamed, never held whole.
type Local string

// Active implements Store: a missing file is an empty segment, and
// anything but a regular file (a FIFO, which would block the open) is an
// *inputfile.NotRegularError.
func (l Local) Active(context.Context) (io.ReadCloser, error) {
	f, err := inputfile.Open(string(l))
	if errors.Is(err, fs.ErrNotExist) {
		return InMemory(nil), nil
	}
	return f, err
}

// Sealed implements Store.
func (l Local) Sealed(context.Context) ([]Segment, error) { return Segments(string(l)) }

// Open implements Store.
func (l Local) Open(_ context.Context, s Segment) (io.ReadCloser, error) { return os.Open(s.Path) }

// WindowEntry is one entry of a window (ReadWindow): its common members
// and the run's totals, read without decoding the rest of its line.
type WindowEntry struct {
	Seq                 int64
	Time                time.Time
	Kind, Run, Workflow string
	// Tokens and CostUSD are the entry's run totals (the tokens and
	// cost_usd members, architecture §4.17): the known part. HasTokens and
	// HasCost say whether it has them (older entries and other kinds do
	// not; a total nothing of which is known is null, and older entries
	// left an unknown cost out); TokensUnknown and CostUnknown whether
	// some part of them is unknown (tokens_unknown, cost_unknown).
	Tokens                     int64
	CostUSD                    float64
	HasTokens, HasCost         bool
	TokensUnknown, CostUnknown bool
	// Line is the entry's canonical line, for a reader that needs more of
	// it. It is valid only until the callback returns; the strings above
	// are the entry's own.
	Line []byte
}

// ReadWindow calls fn with every entry of the ledger in st recorded at or
// after since, reading only the segments that can hold such entries: the
// active segment, then the sealed segments from the newest back to the
// first one that starts before since (entries are appended in time
// order; one segment more is read than the window holds, at most). The
// entries come segment by segment, newest segment first, in order within
// a segment. Each line must be a JSON object with the common members;
// its canonical form and its place in the chain are verify's to check
// (ReadVerifiedWindow checks them). A bad line stops ReadWindow with an
// error naming the segment and the line.
func ReadWindow(ctx context.Context, st Store, since time.Time, fn func(WindowEntry) error) error {
	return readWindow(ctx, st, since, nil, fn)
}

// ReadVerifiedWindow is ReadWindow of a window that verifies: before fn
// sees any entry of a segment, the lines read of it — from the window's
// start, or the segment's first line, to its end — are checked as Verify
// checks a ledger (canonical form, common members, seq, prev, hash), and
// the segments read as one chain (each continues the one before it, and a
// sealed segment holds the entries its name says). The first line read is
// taken as the window's start: what comes before it is not read, so not
// checked; it is always a line recorded before since (by its own time,
// which is checked with it) or the segment's first, so that no entry can
// move itself out of the window unchecked. A fault is a *VerifyError wrapped with the segment's path,
// whose Line is the entry's place in the whole ledger (its seq in a
// valid one); fn has then seen no entry of that segment.
//
// fn is given the entries as the verification read them, without a
// second parse, each with its line read again: the line verified (the
// same length and 64-bit hash), else the segment changed while it was
// read, which is an error. Past the first 32,768 lines of a segment (a
// long flat ledger's; an 8 MiB segment holds fewer), whose entries are
// not kept, the lines are read and parsed again as ReadWindow reads
// them, unmatched.
func ReadVerifiedWindow(ctx context.Context, st Store, since time.Time, fn func(WindowEntry) error) error {
	return readWindow(ctx, st, since, &windowLines{max: maxWindowLines}, fn)
}

// Named is a Store that can say where its active segment is (a path, a
// file on a branch), for errors; a Store that is not says "ledger.jsonl".
type Named interface {
	// Name is the active segment's path as the user gave it.
	Name() string
}

// Name implements Named: the path given.
func (l Local) Name() string { return string(l) }

// readWindow is ReadWindow, or, with lines (which holds the verified
// entries of one segment at a time), ReadVerifiedWindow.
func readWindow(ctx context.Context, st Store, since time.Time, lines *windowLines, fn func(WindowEntry) error) error {
	verify := lines != nil
	name := "ledger.jsonl"
	if n, ok := st.(Named); ok {
		name = n.Name()
	}
	newer, err := readWindowPart(name, func() (io.ReadCloser, error) { return st.Active(ctx) }, since, lines, nil, fn)
	if err != nil {
		return err
	}
	first := newer.start
	if first.seq == 1 || (first.seq > 1 && first.time.Before(since)) {
		return nil // the window starts in the active segment
	}
	segs, err := st.Sealed(ctx)
	if err != nil {
		return fmt.Errorf("list the ledger's sealed segments: %w", err)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := segs[i]
		part, err := readWindowPart(s.Path, func() (io.ReadCloser, error) { return st.Open(ctx, s) }, since, lines, &s, fn)
		if err != nil {
			return err
		}
		if verify {
			if err := part.continuedBy(newer, s.Path); err != nil {
				return err
			}
			newer = part
		}
		if part.start.time.Before(since) {
			return nil
		}
	}
	return nil
}

// windowStart is the first entry of a segment.
type windowStart struct {
	seq  int64
	time time.Time
}

// windowPart is what was read of one segment.
type windowPart struct {
	// start is the segment's first entry.
	start windowStart
	// With verification, the first line verified (its seq and prev) and
	// the segment's last entry; empty: a segment with no line.
	firstSeq  int64
	firstPrev string
	last      Head
}

// continuedBy checks that newer, the part of the next segment read
// before p, starts where p ends.
func (p windowPart) continuedBy(newer windowPart, path string) error {
	if newer.firstSeq == 0 || p.last.Seq == 0 {
		return nil
	}
	if newer.firstSeq != p.last.Seq+1 || newer.firstPrev != p.last.Hash {
		return segmentError(path, p.last.Seq, "the segment ends with entry %d (hash %.12s…), but the segment after it starts with seq %d and prev %.12s…: a segment was removed, replaced or renamed",
			p.last.Seq, p.last.Hash, newer.firstSeq, newer.firstPrev)
	}
	return nil
}

// readWindowPart calls fn with the entries of one segment recorded at or
// after since, and returns the segment's first entry (zero when empty).
// When the window starts after the segment's first entry and the segment
// can be read at any offset (a file, bytes in memory), the window's start
// is found by bisection, so the entries before it are not read. With
// lines (ReadVerifiedWindow), the lines from there to the segment's end
// are verified before fn sees any of them, and fn is given the entries
// the verification read (see windowLines); seg is the sealed segment read
// (nil: the active one).
func readWindowPart(name string, open func() (io.ReadCloser, error), since time.Time, lines *windowLines, seg *Segment, fn func(WindowEntry) error) (windowPart, error) {
	var part windowPart
	rc, err := open()
	if err != nil {
		return part, fmt.Errorf("read ledger %s: %w", name, err)
	}
	defer rc.Close()
	verify := lines != nil
	ra, size, random := readerAt(rc)
	if verify && !random { // a Store's own reader: held once, read twice
		data, err := io.ReadAll(rc)
		if err != nil {
			return part, fmt.Errorf("read ledger %s: %w", name, err)
		}
		br := bytes.NewReader(data)
		ra, size, random, rc = br, br.Size(), true, InMemory(data)
	}
	sr := &segmentReader{name: name, br: bufio.NewReaderSize(rc, 64<<10)}
	e, ok, err := sr.next()
	if !ok || err != nil {
		return part, err
	}
	part.start = windowStart{seq: e.Seq, time: e.Time}
	from, secondLine := int64(0), sr.offset
	if e.Time.Before(since) && random {
		off, err := bisect(ra, size, sr.offset, since)
		if err != nil {
			return part, fmt.Errorf("read ledger %s: %w", name, err)
		}
		from = off
		sr.seek(io.NewSectionReader(ra, off, size-off), off)
		if verify && off == secondLine {
			// bisect stopped at the second line: the first one, before the
			// window by its own word, is verified too, so that a first
			// entry whose time was moved back cannot take itself out of
			// the window unchecked.
			from = 0
		}
	}
	if verify {
		if err := part.verify(ra, from, size, name, seg, lines); err != nil {
			return part, err
		}
		return part, lines.read(io.NewSectionReader(ra, from, size-from), name, from, since, fn)
	}
	for ; ; e, ok, err = sr.next() {
		if !ok || err != nil {
			return part, err
		}
		if e.Time.Before(since) {
			continue
		}
		if err := fn(e); err != nil {
			return part, err
		}
	}
}

// verify verifies the lines of a segment (name, sealed as seg when not
// nil) from offset from to its end, as a chain that continues its first
// line's prev, records where they start and end, and collects their
// entries into lines.
func (p *windowPart) verify(ra io.ReaderAt, from, size int64, name string, seg *Segment, lines *windowLines) error {
	first, err := firstLine(io.NewSectionReader(ra, from, size-from), size-from)
	if err != nil {
		var verr *VerifyError
		if errors.As(err, &verr) && verr.Line == 0 {
			if from > 0 {
				return fmt.Errorf("ledger %s: the line at byte %d: %w", name, from, err)
			}
			verr.Line = p.start.seq // the segment's first line
		}
		return fmt.Errorf("ledger %s: %w", name, err)
	}
	head := Head{Seq: first.seq - 1, Hash: string(first.prev)}
	if head.Seq == 0 {
		head = Head{}
	}
	sum, err := verifyFrom(io.NewSectionReader(ra, from, size-from), head, nil, lines)
	if err != nil {
		return fmt.Errorf("ledger %s: %w", name, err)
	}
	p.firstSeq, p.firstPrev, p.last = first.seq, string(first.prev), sum.Head
	if seg != nil {
		if from == 0 && first.seq != seg.First {
			return segmentError(name, first.seq, "segment %s starts with seq %d, but its name says %d", filepath.Base(name), first.seq, seg.First)
		}
		if sum.Head.Seq != seg.Last {
			return segmentError(name, sum.Head.Seq, "segment %s ends with seq %d, but its name says %d: it was cut short, extended or renamed", filepath.Base(name), sum.Head.Seq, seg.Last)
		}
	}
	return nil
}

// segmentReader reads a segment's entries line by line, knowing where
// each line is, for errors.
type segmentReader struct {
	name string
	br   *bufio.Reader
	// line is the number of the last line read, 0 once the reader moved
	// to an offset (bisect) and no longer knows it; offset is where the
	// next line starts.
	line   int64
	offset int64
	seeked bool
}

// next reads the next entry; ok is false at the end of the segment.
func (r *segmentReader) next() (WindowEntry, bool, error) {
	line, ok, err := r.nextLine()
	if !ok || err != nil {
		return WindowEntry{}, false, err
	}
	e, err := r.entry(line)
	return e, err == nil, err
}

// entry reads the entry of line, the last line read.
func (r *segmentReader) entry(line []byte) (WindowEntry, error) {
	e, lerr := windowEntry(line)
	if lerr != nil {
		return WindowEntry{}, fmt.Errorf("ledger %s: %s: %s; run optr ledger verify", r.name, r.at(line), lerr.reason)
	}
	return e, nil
}

// nextLine reads the next line, without its newline; ok is false at the
// end of the segment.
func (r *segmentReader) nextLine() ([]byte, bool, error) {
	line, err := readLine(r.br)
	r.line++
	r.offset += int64(len(line)) + 1
	switch {
	case len(line) == 0 && errors.Is(err, io.EOF):
		return nil, false, nil
	case errors.Is(err, io.EOF):
		return nil, false, fmt.Errorf("ledger %s: %s: the last line has no trailing newline: the write that added it was cut off", r.name, r.at(line))
	case errors.Is(err, errLineTooLong):
		return nil, false, fmt.Errorf("ledger %s: %s: the line is longer than %d bytes", r.name, r.at(line), MaxLineSize)
	case err != nil:
		return nil, false, fmt.Errorf("read ledger %s: %w", r.name, err)
	}
	return line, true, nil
}

// at names the place of line, the last line read, for an error.
func (r *segmentReader) at(line []byte) string {
	if r.seeked {
		return fmt.Sprintf("the line at byte %d", r.offset-int64(len(line))-1)
	}
	return fmt.Sprintf("line %d", r.line)
}

// seek continues reading from rd, which starts at offset.
func (r *segmentReader) seek(rd io.Reader, offset int64) {
	r.br.Reset(rd)
	r.offset, r.seeked = offset, true
}

// readerAt returns rc's random access and size when it has them (a
// file, a bytes.Reader).
func readerAt(rc io.ReadCloser) (io.ReaderAt, int64, bool) {
	switch v := rc.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil {
			return nil, 0, false
		}
		return v, st.Size(), true
	case interface {
		io.ReaderAt
		Size() int64
	}:
		return v, v.Size(), true
	}
	return nil, 0, false
}

// bisectSpan is how near bisect comes to the window's start: below it,
// reading on is cheaper than bisecting further.
const bisectSpan = 64 << 10

// bisect returns the offset of a line start in ra (size bytes) at or
// before the first entry recorded at or after since, from lo, a line
// start whose entry is before since. Entries are in time order (within
// the runners' clock skew); a line bisect cannot read ends the search
// where it is, and the reader reports it.
func bisect(ra io.ReaderAt, size, lo int64, since time.Time) (int64, error) {
	hi := size
	buf := make([]byte, 16<<10)
	for hi-lo > bisectSpan {
		mid := lo + (hi-lo)/2
		start, line, err := nextLineAt(ra, size, mid, buf)
		if err != nil {
			return 0, err
		}
		if start < 0 || start >= hi {
			hi = mid
			continue
		}
		e, lerr := windowEntry(line)
		if lerr != nil {
			return lo, nil
		}
		if e.Time.Before(since) {
			lo = start
		} else {
			hi = start
		}
	}
	return lo, nil
}

// nextLineAt returns the first whole line that starts after offset off,
// and where it starts (-1 when none does).
func nextLineAt(ra io.ReaderAt, size, off int64, buf []byte) (int64, []byte, error) {
	var acc []byte
	start := int64(-1)
	for pos := off; pos < size; {
		n, err := ra.ReadAt(buf, pos)
		if n == 0 && err != nil {
			return -1, nil, err
		}
		chunk := buf[:n]
		if start < 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				pos += int64(n)
				continue
			}
			start = pos + int64(i) + 1
			chunk = chunk[i+1:]
		}
		if j := bytes.IndexByte(chunk, '\n'); j >= 0 {
			return start, append(acc, chunk[:j]...), nil
		}
		acc = append(acc, chunk...)
		if len(acc) > MaxLineSize {
			return start, nil, nil // too long: the reader reports it
		}
		pos += int64(n)
	}
	return -1, nil, nil
}

// windowEntry reads one line's common members and totals. gjson walks
// the line's top level without decoding the rest (the results, the bulk of
// a run entry), or checking it: several times faster than a full decode
// or a canonical check, which verify makes. A line that is not an object
// with the common members is refused.
func windowEntry(line []byte) (WindowEntry, *lineError) {
	// gjson.ParseBytes copies the whole line into a string; read it in
	// place instead, and copy only the strings the entry keeps (Run and
	// Workflow outlive the line, which the caller's buffer reuses).
	top := gjson.Parse(bytesString(line))
	if !top.IsObject() {
		return WindowEntry{}, newLineError(ProblemNotJSON, "the line is not a JSON object")
	}
	e := WindowEntry{Line: line}
	var ts string
	var have int
	top.ForEach(func(k, v gjson.Result) bool {
		var dst *string
		switch k.Str {
		case memberTime:
			dst = &ts
		case memberKind:
			dst = &e.Kind
		case memberRun:
			dst = &e.Run
		case memberWorkflow:
			dst = &e.Workflow
		case memberSeq:
			if v.Type == gjson.Number {
				e.Seq, have = v.Int(), have+1
			}
		default:
			e.total(k.Str, v)
		}
		if dst != nil && v.Type == gjson.String {
			*dst, have = v.Str, have+1
		}
		return true
	})
	if have != 5 || e.Seq < 1 || e.Kind == "" || e.Run == "" {
		return WindowEntry{}, newLineError(ProblemMember, "a common member is missing or of the wrong type; every entry has seq, time, kind, run and workflow")
	}
	t, err := time.Parse(timeLayout, ts)
	if err != nil {
		return WindowEntry{}, newLineError(ProblemMember, "member \"time\" is %q, not an RFC 3339 time", strings.Clone(ts))
	}
	e.Time = t
	e.Kind, e.Run, e.Workflow = kindOf(e.Kind), strings.Clone(e.Run), strings.Clone(e.Workflow)
	return e, nil
}

// total sets the run total that member key holds (architecture §4.17)
// to its value v; any other member is left alone.
func (e *WindowEntry) total(key string, v gjson.Result) {
	switch key {
	case memberTokens:
		e.Tokens, e.HasTokens = v.Int(), v.Type == gjson.Number
	case memberCostUSD:
		e.CostUSD, e.HasCost = v.Float(), v.Type == gjson.Number
	case memberTokensUnknown:
		e.TokensUnknown = v.Type == gjson.True
	case memberCostUnknown:
		e.CostUnknown = v.Type == gjson.True
	}
}

// kindOf returns kind as one of the Kind constants when it is one (no
// copy), else a copy of it.
func kindOf(kind string) string {
	for _, k := range [...]string{KindRun, KindCheckpoint, KindDecision, KindEscalation, KindOutcome} {
		if kind == k {
			return k
		}
	}
	return strings.Clone(kind)
}
