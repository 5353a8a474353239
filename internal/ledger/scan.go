package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Scan reads the ledger from r and calls fn with each entry in order. It
// does not verify the chain (Verify does): it only needs each line to be a
// JSON object with the common members. A bad line, or a last line without a
// newline, stops Scan with a *VerifyError naming it, after fn has seen the
// entries before it. If fn returns an error, Scan stops and returns it
// unchanged.
func Scan(r io.Reader, fn func(Entry) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		line, err := readLine(br)
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		n++
		switch {
		case errors.Is(err, io.EOF):
			return newLineError(ProblemTorn, "the last line has no trailing newline: the write that added it was cut off").at(n)
		case errors.Is(err, errLineTooLong):
			return newLineError(ProblemTooLong, "the line is longer than %d bytes", MaxLineSize).at(n)
		case err != nil:
			return fmt.Errorf("read ledger: %w", err)
		}
		e, lerr := decodeEntry(line)
		if lerr != nil {
			return lerr.at(n)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline. At the end of the
// input it returns what is left with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if long == nil && err == nil {
			return chunk[:len(chunk)-1], nil // the common case: no copy
		}
		long = append(long, chunk...)
		if len(long) > MaxLineSize+1 {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return long[:len(long)-1], nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return long, err
		}
	}
}

// decodeEntry decodes one line without checking its form or hash.
func decodeEntry(line []byte) (Entry, *lineError) {
	if len(bytes.TrimSpace(line)) == 0 {
		return Entry{}, newLineError(ProblemNotJSON, "the line is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return Entry{}, newLineError(ProblemNotJSON, "the line is not a JSON object: %v", err)
	}
	if m == nil || len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		return Entry{}, newLineError(ProblemNotJSON, "the line is not one JSON object")
	}
	var e Entry
	var lerr *lineError
	str := func(name string, dst *string) {
		v, ok := m[name].(string)
		if !ok && lerr == nil {
			lerr = newLineError(ProblemMember, "member %q is missing or not a string", name)
		}
		*dst = v
		delete(m, name)
	}
	str(memberTime, &e.Time)
	str(memberKind, &e.Kind)
	str(memberRun, &e.Run)
	str(memberWorkflow, &e.Workflow)
	str(memberPrev, &e.Prev)
	str(memberHash, &e.Hash)
	if lerr != nil {
		return Entry{}, lerr
	}
	num, _ := m[memberSeq].(json.Number)
	seq, err := num.Int64()
	if err != nil || seq < 1 {
		return Entry{}, newLineError(ProblemMember, "member \"seq\" is missing or not a positive integer")
	}
	e.Seq = seq
	delete(m, memberSeq)
	if len(m) > 0 {
		e.Fields = m
	}
	return e, nil
}
