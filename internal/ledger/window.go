package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Store is where a ledger's segments are read from: a checkout (Local) or
// a branch through an API.
type Store interface {
	// Active returns the active segment (ledger.jsonl), empty when there
	// is none.
	Active(ctx context.Context) ([]byte, error)
	// Sealed lists the sealed segments in seq order; Path is what Read
	// takes.
	Sealed(ctx context.Context) ([]Segment, error)
	// Read returns a sealed segment's bytes.
	Read(ctx context.Context, s Segment) ([]byte, error)
}

// Local is the Store of the ledger whose active segment is the file at
// its path.
type Local string

// Active implements Store: a missing file is an empty segment.
func (l Local) Active(context.Context) ([]byte, error) {
	data, err := os.ReadFile(string(l))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Sealed implements Store.
func (l Local) Sealed(context.Context) ([]Segment, error) { return Segments(string(l)) }

// Read implements Store.
func (l Local) Read(_ context.Context, s Segment) ([]byte, error) { return os.ReadFile(s.Path) }

// WindowEntry is one entry of a window (ReadWindow): its common members
// and the run's totals, read without decoding the rest of its line.
type WindowEntry struct {
	Seq                 int64
	Time                time.Time
	Kind, Run, Workflow string
	// Tokens and CostUSD are the entry's run totals (the tokens and
	// cost_usd members, DESIGN §4.17); HasTokens and HasCost say whether
	// it has them (older entries and other kinds do not; an unknown cost
	// is left out).
	Tokens             int64
	CostUSD            float64
	HasTokens, HasCost bool
	// Line is the entry's canonical line, for a reader that needs more of
	// it. It is valid only until the callback returns.
	Line []byte
}

// ReadWindow calls fn with every entry of the ledger in st recorded at or
// after since, reading only the segments that can hold such entries: the
// active segment, then the sealed segments from the newest back to the
// first one that starts before since (entries are appended in time
// order; one segment more is read than the window holds, at most). The
// entries come segment by segment, newest segment first, in order within
// a segment. Lines are checked for form (canonical JSON, the common
// members), not chained: verify does that. A bad line stops ReadWindow
// with an error naming the segment and the line.
func ReadWindow(ctx context.Context, st Store, since time.Time, fn func(WindowEntry) error) error {
	data, err := st.Active(ctx)
	if err != nil {
		return fmt.Errorf("read the ledger: %w", err)
	}
	first, err := readWindowPart("ledger.jsonl", data, since, fn)
	if err != nil {
		return err
	}
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
		data, err := st.Read(ctx, s)
		if err != nil {
			return fmt.Errorf("read ledger segment %s: %w", filepath.Base(s.Path), err)
		}
		first, err := readWindowPart(filepath.Base(s.Path), data, since, fn)
		if err != nil {
			return err
		}
		if first.time.Before(since) {
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

// readWindowPart calls fn with the entries of one segment recorded at or
// after since, and returns the segment's first entry (zero when empty).
func readWindowPart(name string, data []byte, since time.Time, fn func(WindowEntry) error) (windowStart, error) {
	var first windowStart
	for n := int64(1); len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return first, fmt.Errorf("ledger %s: %w", name, newLineError(ProblemTorn, "the last line has no trailing newline: the write that added it was cut off").at(n))
		}
		line := data[:i]
		data = data[i+1:]
		e, lerr := windowEntry(line)
		if lerr != nil {
			return first, fmt.Errorf("ledger %s: %w; run optr ledger verify", name, lerr.at(n))
		}
		if n == 1 {
			first = windowStart{seq: e.Seq, time: e.Time}
		}
		if e.Time.Before(since) {
			continue
		}
		if err := fn(e); err != nil {
			return first, err
		}
	}
	return first, nil
}

// windowEntry reads one line's common members and totals.
func windowEntry(line []byte) (WindowEntry, *lineError) {
	info, lerr := parseLine(line)
	if lerr != nil {
		return WindowEntry{}, lerr
	}
	m := &info.members
	ts, _ := stringBody(line, m.time) // parseLine checked it
	t, err := time.Parse(timeLayout, string(ts))
	if err != nil {
		return WindowEntry{}, newLineError(ProblemMember, "member \"time\" is not an RFC 3339 time: %v", err)
	}
	wf, _ := stringBody(line, m.workflow)
	e := WindowEntry{Seq: info.seq, Time: t, Kind: string(info.kind), Run: string(info.run), Workflow: string(wf), Line: line}
	if m.tokens.found {
		v, err := strconv.ParseInt(string(line[m.tokens.val:m.tokens.end]), 10, 64)
		if err != nil {
			return WindowEntry{}, newLineError(ProblemMember, "member \"tokens\" is %s, not an integer", clip(line[m.tokens.val:m.tokens.end]))
		}
		e.Tokens, e.HasTokens = v, true
	}
	if m.costUSD.found {
		v, err := strconv.ParseFloat(string(line[m.costUSD.val:m.costUSD.end]), 64)
		if err != nil {
			return WindowEntry{}, newLineError(ProblemMember, "member \"cost_usd\" is %s, not a number", clip(line[m.costUSD.val:m.costUSD.end]))
		}
		e.CostUSD, e.HasCost = v, true
	}
	return e, nil
}
