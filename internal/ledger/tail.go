package ledger

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
)

// tailWindow is how much of the ledger before its last line readTailHead
// checks as a chain: enough for dozens of entries, cheap to read and hash.
const tailWindow = 64 << 10

// readTailHead finds the head of the ledger in f (size bytes long) from its
// tail alone, so its cost does not grow with the ledger: the last line, and
// the complete lines in the tailWindow bytes before it, each must be a
// valid entry with a matching hash that follows the one before it. That
// catches a duplicated, dropped or edited entry near the end without
// reading the whole ledger. A last line that is torn (no newline) or any
// bad line in the window is refused with a *VerifyError.
func readTailHead(f io.ReaderAt, size int64) (Head, error) {
	if size == 0 {
		return Head{}, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return Head{}, fmt.Errorf("read ledger tail: %w", err)
	}
	if last[0] != '\n' {
		_, start, err := lastLine(f, size)
		if err != nil {
			return Head{}, err
		}
		return Head{}, newLineError(ProblemTorn, "it has no trailing newline, so the write that added it was cut off").at(lineAfter(f, start))
	}
	line, start, err := lastLine(f, size-1)
	if err != nil {
		return Head{}, err
	}
	info, lerr := checkedLine(line)
	if lerr != nil {
		return Head{}, lerr.at(lineAfter(f, start))
	}
	if err := checkWindow(f, start, &info); err != nil {
		return Head{}, err
	}
	return Head{Seq: info.seq, Hash: string(info.hash)}, nil
}

// checkedLine parses a line and checks its hash.
func checkedLine(line []byte) (lineInfo, *lineError) {
	info, lerr := parseLine(line)
	if lerr != nil {
		return info, lerr
	}
	var sum [sha256.Size]byte
	sumLine(sha256.New(), line, info.cutStart, info.cutEnd, &sum)
	if !hashMatches(&sum, info.hash) {
		return info, newLineError(ProblemHash, "its hash is %s, but the line hashes to %x: it was changed after it was written", info.hash, sum)
	}
	return info, nil
}

// checkWindow checks the complete lines in the tailWindow bytes before
// offset end (where the line last starts) as a chain ending in last.
func checkWindow(f io.ReaderAt, end int64, last *lineInfo) error {
	lo := max(0, end-tailWindow)
	buf := make([]byte, end-lo)
	if n, err := f.ReadAt(buf, lo); n < len(buf) {
		return fmt.Errorf("read ledger tail: %w", err)
	}
	if lo > 0 { // drop the partial line the window starts in
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil
		}
		buf = buf[i+1:]
	}
	later := last
	for len(buf) > 0 {
		i := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
		line := buf[i+1 : len(buf)-1]
		buf = buf[:i+1]
		info, lerr := checkedLine(line)
		if lerr != nil {
			return &windowError{lerr.at(later.seq - 1)}
		}
		if later.seq != info.seq+1 || !bytes.Equal(later.prev, info.hash) {
			return &windowError{newLineError(ProblemSeq, "the entry with seq %d does not follow the entry before it (seq %d, hash %.12s…): an entry near the end was duplicated, dropped or changed", later.seq, info.seq, info.hash).at(info.seq + 1)}
		}
		later = &info
	}
	return nil
}

// windowError is a bad line before the last one, found by checkWindow.
type windowError struct{ *VerifyError }

func (e *windowError) Unwrap() error { return e.VerifyError }

// tornTail finds a torn last line (no trailing newline) in f: it returns
// the offset where that line starts and its number, or size when the file
// ends with a newline.
func tornTail(f io.ReaderAt, size int64) (cut, line int64, err error) {
	if size == 0 {
		return 0, 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, 0, fmt.Errorf("read ledger tail: %w", err)
	}
	if last[0] == '\n' {
		return size, 0, nil
	}
	_, start, err := lastLine(f, size)
	if err != nil {
		return 0, 0, err
	}
	return start, lineAfter(f, start), nil
}

// firstSeq returns the seq of the first line of f (size bytes long).
func firstSeq(f io.ReaderAt, size int64) (int64, error) {
	info, err := firstLine(f, size)
	return info.seq, err
}

// firstLine parses the first line of f (size bytes long).
func firstLine(f io.ReaderAt, size int64) (lineInfo, error) {
	for w := int64(4096); ; w *= 4 {
		w = min(w, size, MaxLineSize+1)
		buf := make([]byte, w)
		if n, err := f.ReadAt(buf, 0); n < len(buf) {
			return lineInfo{}, fmt.Errorf("read ledger head: %w", err)
		}
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			info, lerr := parseLine(buf[:i])
			if lerr != nil {
				return lineInfo{}, lerr.at(0)
			}
			return info, nil
		}
		if w == size || w > MaxLineSize {
			return lineInfo{}, newLineError(ProblemTorn, "the first line has no newline").at(1)
		}
	}
}

// lastLine returns the line that ends at offset end (newline excluded) and
// the offset where it starts. It reads backwards in growing windows, so it
// costs about the line's length, and refuses a line longer than
// MaxLineSize.
func lastLine(f io.ReaderAt, end int64) ([]byte, int64, error) {
	for w := int64(4096); ; w *= 4 {
		w = min(w, MaxLineSize+1)
		lo := max(0, end-w)
		buf := make([]byte, end-lo)
		if n, err := f.ReadAt(buf, lo); n < len(buf) {
			return nil, 0, fmt.Errorf("read ledger tail: %w", err)
		}
		i := bytes.LastIndexByte(buf, '\n')
		switch {
		case i >= 0:
			return buf[i+1:], lo + int64(i) + 1, nil
		case len(buf) > MaxLineSize:
			return nil, 0, newLineError(ProblemTooLong, "it is longer than %d bytes", MaxLineSize).at(0)
		case lo == 0:
			return buf, 0, nil
		}
	}
}

// lineAfter returns the number of the line that starts at offset start,
// taken from the seq of the line before it (in a valid ledger, line n holds
// seq n). It returns 0 when that line cannot tell.
func lineAfter(f io.ReaderAt, start int64) int64 {
	if start == 0 {
		return 1
	}
	prev, _, err := lastLine(f, start-1)
	if err != nil {
		return 0
	}
	info, lerr := parseLine(prev)
	if lerr != nil {
		return 0
	}
	return info.seq + 1
}

// tailError is a bad last line found by Append or TailHead: the line, and
// how to repair it. It unwraps to the *VerifyError.
type tailError struct {
	path string
	verb string // what could not be done
	verr *VerifyError
	// window is set for a line before the last one.
	window bool
}

func (e *tailError) Error() string {
	where := "the last line"
	if e.verr.Line > 0 {
		where = fmt.Sprintf("the last line (%d)", e.verr.Line)
	}
	if e.window {
		where = fmt.Sprintf("line %d, near the end,", e.verr.Line)
	}
	state := "is bad: " + e.verr.Reason
	if e.verr.Problem == ProblemTorn {
		state = "is incomplete: " + e.verr.Reason
	}
	return fmt.Sprintf("ledger %s: %s: %s %s; run `optr ledger verify --ledger %s` and remove or repair that line", e.path, e.verb, where, state, e.path)
}

func (e *tailError) Unwrap() error { return e.verr }

// errTail explains a failure to read the tail of the ledger at path.
func errTail(path, verb string, err error) error {
	var verr *VerifyError
	if errors.As(err, &verr) {
		var werr *windowError
		return &tailError{path: path, verb: verb, verr: verr, window: errors.As(err, &werr)}
	}
	return fmt.Errorf("ledger %s: %s: %w", path, verb, err)
}
