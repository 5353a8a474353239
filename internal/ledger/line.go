package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash"
	"strconv"
	"time"

	"github.com/optr-dev/optr/internal/markdown"
)

// MaxLineSize is the longest ledger line accepted, in bytes, newline
// excluded. It bounds the memory Verify, Append and Scan need.
const MaxLineSize = 8 << 20

// lineInfo is what checking one line found. Its slices point into the line.
type lineInfo struct {
	seq  int64
	prev []byte // 64 hex digits
	hash []byte // 64 hex digits
	kind []byte // raw body of the kind string
	run  []byte // raw body of the run string
	// cutStart and cutEnd delimit the hash member and one adjacent comma:
	// the line without them is the canonical entry without its hash.
	cutStart, cutEnd int
	// members are the positions of the common members.
	members topMembers
}

// parseLine checks that line (without its newline) is a canonical entry
// with well-formed common members. It does not check the hash.
func parseLine(line []byte) (lineInfo, *lineError) {
	return parsePlainLine(line, plainPrefix(line) == len(line))
}

// parsePlainLine is parseLine of a line the caller found to be plain
// (plainPrefix), or not, on its way to the line's end.
func parsePlainLine(line []byte, plain bool) (lineInfo, *lineError) {
	var info lineInfo
	if len(line) == 0 {
		return info, newLineError(ProblemNotJSON, "the line is empty")
	}
	if err := checkCanonicalObject(line, plain, &info.members); err != nil {
		return info, classify(line, err)
	}
	m := &info.members
	for _, c := range [...]struct {
		name  string
		found bool
	}{
		{memberSeq, m.seq.found}, {memberTime, m.time.found}, {memberKind, m.kind.found}, {memberRun, m.run.found},
		{memberWorkflow, m.workflow.found}, {memberPrev, m.prev.found}, {memberHash, m.hash.found},
	} {
		if !c.found {
			return info, newLineError(ProblemMember, "member %q is missing; every entry has seq, time, kind, run, workflow, prev and hash", c.name)
		}
	}

	seq, ok := positiveInt(line[m.seq.val:m.seq.end])
	if !ok {
		return info, newLineError(ProblemMember, "member \"seq\" is %s, not a positive integer", clip(line[m.seq.val:m.seq.end]))
	}
	info.seq = seq

	ts, ok := stringBody(line, m.time)
	if !ok || !isUTCTime(ts) {
		return info, newLineError(ProblemMember, "member \"time\" is %s, not an RFC 3339 time in UTC", clip(line[m.time.val:m.time.end]))
	}
	if info.kind, ok = stringBody(line, m.kind); !ok || len(info.kind) == 0 {
		return info, newLineError(ProblemMember, "member \"kind\" is %s, not a non-empty string", clip(line[m.kind.val:m.kind.end]))
	}
	if info.run, ok = stringBody(line, m.run); !ok || len(info.run) == 0 {
		return info, newLineError(ProblemMember, "member \"run\" is %s, not a non-empty string", clip(line[m.run.val:m.run.end]))
	}
	if _, ok = stringBody(line, m.workflow); !ok {
		return info, newLineError(ProblemMember, "member \"workflow\" is %s, not a string", clip(line[m.workflow.val:m.workflow.end]))
	}
	if info.prev, ok = stringBody(line, m.prev); !ok || !isHexHash(info.prev) {
		return info, newLineError(ProblemMember, "member \"prev\" is %s, not 64 lowercase hex digits", clip(line[m.prev.val:m.prev.end]))
	}
	if info.hash, ok = stringBody(line, m.hash); !ok || !isHexHash(info.hash) {
		return info, newLineError(ProblemMember, "member \"hash\" is %s, not 64 lowercase hex digits", clip(line[m.hash.val:m.hash.end]))
	}

	// Keys are sorted and "kind" follows "hash", so hash is never the last
	// member: cut the comma after it when it is first, else the one before.
	if m.hash.key == 1 {
		info.cutStart, info.cutEnd = m.hash.key, m.hash.end+1
	} else {
		info.cutStart, info.cutEnd = m.hash.key-1, m.hash.end
	}
	return info, nil
}

// classify turns a canonical-form failure into a problem: bytes that are
// not JSON at all differ from JSON that was re-encoded or edited.
func classify(line []byte, err error) *lineError {
	if !json.Valid(line) {
		return newLineError(ProblemNotJSON, "the line is not JSON (%v)", err)
	}
	if line[0] != '{' {
		return newLineError(ProblemNotJSON, "the line is JSON but not an object")
	}
	return newLineError(ProblemNotCanonical, "the line is JSON but not in RFC 8785 canonical form (%v); ledger lines are written canonical, so it was edited or written by another tool", err)
}

// sumLine computes the entry hash of a checked line: the SHA-256 of the
// line with its hash member cut out. h is reset and reused.
func sumLine(h hash.Hash, line []byte, cutStart, cutEnd int, out *[sha256.Size]byte) {
	h.Reset()
	h.Write(line[:cutStart])
	h.Write(line[cutEnd:])
	h.Sum(out[:0])
}

// hashMatches reports whether sum, hex-encoded, equals the 64 hex digits
// want.
func hashMatches(sum *[sha256.Size]byte, want []byte) bool {
	if len(want) != 2*sha256.Size {
		return false
	}
	// Two digits at a time, by table, without a branch: the verifier
	// compares a hash a line.
	var diff uint16
	for i, c := range sum {
		diff |= binary.LittleEndian.Uint16(want[2*i:2*i+2]) ^ hexPairs[c]
	}
	return diff == 0
}

// hexPairs holds the two lowercase hex digits of each byte, the first in
// the low byte.
var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for c := range t {
		t[c] = uint16(digits[c>>4]) | uint16(digits[c&15])<<8
	}
	return t
}()

// stringBody returns the raw body of a string member. ok is false when the
// value is not a string or holds escapes (none of the common members needs
// one, and refusing them keeps comparisons bytewise).
func stringBody(line []byte, m member) ([]byte, bool) {
	if line[m.val] != '"' {
		return nil, false
	}
	body := line[m.val+1 : m.end-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		return nil, false
	}
	return body, true
}

// positiveInt parses a canonical positive integer of at most 15 digits.
func positiveInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// isUTCTime reports whether b is an RFC 3339 time in UTC, as
// time.Parse(time.RFC3339Nano) reads it.
func isUTCTime(b []byte) bool {
	if len(b) == 0 || b[len(b)-1] != 'Z' {
		return false
	}
	if plainUTCTime(b) {
		return true
	}
	_, err := time.Parse(time.RFC3339Nano, string(b))
	return err == nil
}

// plainUTCTime reports whether b is a time of the shape Append writes,
// 2006-01-02T15:04:05Z with up to nine digits of fraction, and a real
// date and time of day: a shape time.Parse accepts, checked without its
// cost for every line. False sends b to time.Parse.
// FuzzPlainUTCTime holds it to time.Parse.
func plainUTCTime(b []byte) bool {
	const shape = "0000-00-00T00:00:00" // '0': a digit
	if len(b) < len(shape)+1 || len(b) == len(shape)+2 || len(b) > len(shape)+11 || b[len(b)-1] != 'Z' {
		return false
	}
	for i := range len(shape) {
		if shape[i] == '0' {
			if b[i]-'0' > 9 {
				return false
			}
		} else if b[i] != shape[i] {
			return false
		}
	}
	if frac := b[len(shape) : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' {
			return false
		}
		for _, c := range frac[1:] {
			if c-'0' > 9 {
				return false
			}
		}
	}
	num := func(i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }
	year := num(0)*100 + num(2)
	month, day := num(5), num(8)
	if month < 1 || month > 12 || day < 1 || num(11) > 23 || num(14) > 59 || num(17) > 59 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// clip renders a JSON value for an error message: as itself when it is
// printable ASCII (canonical JSON escapes control characters), quoted
// otherwise, and shortened when long.
func clip(b []byte) string {
	const max = 40
	s, suffix := string(b), ""
	if cut := markdown.Truncate(s, max); cut != s {
		s, suffix = cut, "…"
	}
	for _, c := range []byte(s) {
		if c < 0x20 || c >= 0x7f {
			return strconv.QuoteToASCII(s) + suffix
		}
	}
	return s + suffix
}
