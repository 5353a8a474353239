package checkpoint

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/optr-dev/optr/internal/ledger"
)

// needle is in every line that can be a checkpoint or decision entry: both
// kinds carry the checkpoint id in a member named "checkpoint".
var needle = []byte(strconv.Quote(fieldCheckpoint))

// scanCheckpoints reads the ledger from r and calls fn with its
// checkpoint and decision entries, in order, and maybe a few others.
//
// It is ledger.Scan behind a filter: Scan decodes every entry, which costs
// tens of microseconds each, while a ledger is nearly all run entries and
// Recommend, Status and Pending only need the few checkpoint and decision
// entries among them. Lines without needle are skipped undecoded (a JSON
// member name cannot hide from a byte search in a canonical line), so a
// malformed line among them goes unnoticed here: ledger.Verify is what
// checks a ledger. Errors from Scan keep the line's true number.
func scanCheckpoints(r io.Reader, fn func(ledger.Entry) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		line, err := readRawLine(br)
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		n++
		switch {
		case errors.Is(err, errTooLong):
			return &ledger.VerifyError{Line: n, Problem: ledger.ProblemTooLong, Reason: fmt.Sprintf("the line is longer than %d bytes", ledger.MaxLineSize)}
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("read ledger: %w", err)
		}
		// A torn last line goes to Scan whatever it holds, so that it is
		// reported as torn.
		if !bytes.Contains(line, needle) && err == nil {
			continue
		}
		if serr := ledger.Scan(bytes.NewReader(line), fn); serr != nil {
			var verr *ledger.VerifyError
			if errors.As(serr, &verr) {
				renumbered := *verr
				renumbered.Line = n
				return &renumbered
			}
			return serr
		}
		if err != nil {
			return nil // io.EOF after the torn line; Scan reported it
		}
	}
}

var errTooLong = errors.New("line too long")

// readRawLine returns the next line with its newline. At the end of the
// input it returns what is left (no newline) with io.EOF.
func readRawLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if long == nil && !errors.Is(err, bufio.ErrBufferFull) {
			return chunk, err // the common case: no copy
		}
		long = append(long, chunk...)
		if len(long) > ledger.MaxLineSize+1 {
			return nil, errTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return long, err
		}
	}
}
