package ledger

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
)

// readTailHead finds the head of the ledger in f (size bytes long) from its
// last line alone, so its cost does not grow with the ledger. A last line
// that is torn (no newline) or is not a valid entry with a matching hash is
// refused with a *VerifyError.
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
	info, lerr := parseLine(line)
	if lerr != nil {
		return Head{}, lerr.at(lineAfter(f, start))
	}
	var sum [sha256.Size]byte
	sumLine(sha256.New(), line, info.cutStart, info.cutEnd, &sum)
	if !hashMatches(&sum, info.hash) {
		return Head{}, newLineError(ProblemHash, "its hash is %s, but the line hashes to %x: it was changed after it was written", info.hash, sum).at(info.seq)
	}
	return Head{Seq: info.seq, Hash: string(info.hash)}, nil
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
}

func (e *tailError) Error() string {
	where := "the last line"
	if e.verr.Line > 0 {
		where = fmt.Sprintf("the last line (%d)", e.verr.Line)
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
		return &tailError{path: path, verb: verb, verr: verr}
	}
	return fmt.Errorf("ledger %s: %s: %w", path, verb, err)
}
