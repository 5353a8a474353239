package ledger

import "fmt"

// Problem classifies why a ledger line is bad.
type Problem string

// The problems Verify reports.
const (
	// ProblemNotJSON: the line is not a JSON object (or is empty).
	ProblemNotJSON Problem = "not-json"
	// ProblemNotCanonical: the line is JSON but not its RFC 8785 canonical
	// form (reordered keys, whitespace, a CRLF ending, escapes, numbers).
	ProblemNotCanonical Problem = "not-canonical"
	// ProblemMember: a common member is missing or has the wrong type.
	ProblemMember Problem = "member"
	// ProblemSeq: seq is not the previous entry's seq plus one.
	ProblemSeq Problem = "seq"
	// ProblemPrev: prev is not the previous entry's hash.
	ProblemPrev Problem = "prev"
	// ProblemHash: hash is not the hash of the line.
	ProblemHash Problem = "hash"
	// ProblemTorn: the last line has no trailing newline (a cut-off write).
	ProblemTorn Problem = "torn"
	// ProblemTrailingGarbage: the file ends with a line that is not an
	// entry at all (not JSON, or empty).
	ProblemTrailingGarbage Problem = "trailing-garbage"
	// ProblemTooLong: the line is longer than MaxLineSize.
	ProblemTooLong Problem = "too-long"
	// ProblemTree: a sealed segment's tree file (ledger.d/*.merkle) does
	// not fit the segment, or has no segment.
	ProblemTree Problem = "tree"
	// ProblemOutcome: an outcome entry names a run of which the ledger
	// holds no run entry before it.
	ProblemOutcome Problem = "outcome"
)

// VerifyError names the first bad line of a ledger and why it is bad.
type VerifyError struct {
	// Line is the 1-based line number. In a valid ledger it equals the
	// entry's seq. It is 0 only when Append or TailHead found a bad last
	// line and could not tell its number.
	Line int64
	// Problem classifies the fault.
	Problem Problem
	// Reason says what is wrong, in words.
	Reason string
}

// Error implements error.
func (e *VerifyError) Error() string {
	if e.Line == 0 { // a tail whose line number could not be told
		return e.Reason
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
}

// lineError is a problem found in one line, before its number is known.
type lineError struct {
	problem Problem
	reason  string
}

func (e *lineError) at(line int64) *VerifyError {
	return &VerifyError{Line: line, Problem: e.problem, Reason: e.reason}
}

func newLineError(p Problem, format string, args ...any) *lineError {
	return &lineError{problem: p, reason: fmt.Sprintf(format, args...)}
}
