package ledger

import (
	"bytes"
	"fmt"
	"strconv"
)

// This file holds a hand-written checker for RFC 8785 canonical JSON. It
// exists for speed: jcs.Transform builds a tree and re-encodes every line,
// which is an order of magnitude slower than hashing the line, while this
// single pass over the bytes allocates nothing on ordinary lines. It accepts
// exactly the documents jcs.Transform leaves unchanged; FuzzCanonicalAgreesWithJCS
// holds it to that. The string and number rules are in canonical_string.go
// and canonical_number.go. A faster pass for the shapes of ledger lines,
// canonical_quick.go, goes first; this one decides, and explains, the rest.

// maxDepth is jcs's nesting limit, so that both agree on deep documents.
const maxDepth = 10000

// canonError says where and why bytes are not canonical JSON.
type canonError struct {
	pos int
	msg string
}

func (e *canonError) Error() string {
	return fmt.Sprintf("column %d: %s", e.pos+1, e.msg)
}

func errAt(pos int, format string, args ...any) *canonError {
	return &canonError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// member is where one top-level member of an object sits in its line.
type member struct {
	found bool
	key   int // offset of the key's opening quote
	val   int // offset of the value's first byte
	end   int // offset just past the value
}

// topMembers are the common members of an entry, and the members of its
// run's totals (ReadVerifiedWindow reads them), found while checking its
// line.
type topMembers struct {
	seq, time, kind, run, workflow, prev, hash member

	tokens, costUSD, tokensUnknown, costUnknown member
}

func (t *topMembers) slot(key []byte) *member {
	switch string(key) { // does not allocate
	case memberSeq:
		return &t.seq
	case memberTime:
		return &t.time
	case memberKind:
		return &t.kind
	case memberRun:
		return &t.run
	case memberWorkflow:
		return &t.workflow
	case memberPrev:
		return &t.prev
	case memberHash:
		return &t.hash
	case memberTokens:
		return &t.tokens
	case memberCostUSD:
		return &t.costUSD
	case memberTokensUnknown:
		return &t.tokensUnknown
	case memberCostUnknown:
		return &t.costUnknown
	}
	return nil
}

// canonScanner checks one document.
type canonScanner struct {
	b     []byte
	depth int
}

// checkCanonical reports whether b is exactly the RFC 8785 canonical form of
// a JSON document (any top-level value).
func checkCanonical(b []byte) error {
	if quickCanonical(b, nil) {
		return nil
	}
	return explainCanonical(b)
}

// explainCanonical is checkCanonical without its fast path: it says what is
// wrong.
func explainCanonical(b []byte) error {
	s := canonScanner{b: b}
	end, err := s.value(0)
	if err != nil {
		return err
	}
	if end != len(b) {
		return errAt(end, "unexpected %s after the value", describe(b, end))
	}
	return nil
}

// checkCanonicalObject is checkCanonical for a document that must be an
// object; it records where the common entry members are. plain says
// whether b is plain (plainPrefix(b) == len(b)), which the caller may
// have found out on the way.
func checkCanonicalObject(b []byte, plain bool, top *topMembers) error {
	if plain && len(b) > 0 && b[0] == '{' && quickPlain(b, top) {
		return nil
	}
	*top = topMembers{}
	return explainCanonicalObject(b, top)
}

// explainCanonicalObject is checkCanonicalObject without its fast path.
func explainCanonicalObject(b []byte, top *topMembers) error {
	if len(b) == 0 || b[0] != '{' {
		return errAt(0, "the line does not start with '{'")
	}
	s := canonScanner{b: b}
	end, err := s.object(0, top)
	if err != nil {
		return err
	}
	if end != len(b) {
		return errAt(end, "unexpected %s after the object", describe(b, end))
	}
	return nil
}

func describe(b []byte, i int) string {
	if i >= len(b) {
		return "end of line"
	}
	return strconv.QuoteRuneToASCII(rune(b[i]))
}

// value checks the value at b[i] and returns the offset past it. Strings
// and numbers, most of a ledger line, come first.
func (s *canonScanner) value(i int) (int, error) {
	b := s.b
	if i >= len(b) {
		return i, errAt(i, "unexpected end of line, want a value")
	}
	switch c := b[i]; {
	case c == '"':
		// The common string, plain ASCII, without a call to str.
		if j := skipPlain(b, i+1); j < len(b) && b[j] == '"' {
			return j + 1, nil
		}
		end, _, err := s.str(i)
		return end, err
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number(i)
	case c == '{':
		return s.object(i, nil)
	case c == '[':
		return s.array(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return i, errAt(i, "whitespace is not allowed in canonical JSON")
	default:
		return i, errAt(i, "unexpected %s, want a value", describe(b, i))
	}
}

func (s *canonScanner) literal(i int, lit string) (int, error) {
	if !bytes.HasPrefix(s.b[i:], []byte(lit)) {
		return i, errAt(i, "invalid literal, want %s", lit)
	}
	return i + len(lit), nil
}

func (s *canonScanner) enter(i int) error {
	s.depth++
	if s.depth > maxDepth {
		return errAt(i, "nesting deeper than %d", maxDepth)
	}
	return nil
}

func (s *canonScanner) array(i int) (int, error) {
	if err := s.enter(i); err != nil {
		return i, err
	}
	b := s.b
	i++ // '['
	if i < len(b) && b[i] == ']' {
		s.depth--
		return i + 1, nil
	}
	for {
		var err error
		if i, err = s.value(i); err != nil {
			return i, err
		}
		if i >= len(b) {
			return i, errAt(i, "unexpected end of line in an array")
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			s.depth--
			return i + 1, nil
		default:
			return i, errAt(i, "unexpected %s in an array, want ',' or ']'", describe(b, i))
		}
	}
}

// object checks an object whose members must appear in RFC 8785 order
// (keys sorted by UTF-16 code units, no duplicates). With top non-nil it
// records the common entry members.
func (s *canonScanner) object(i int, top *topMembers) (int, error) {
	if err := s.enter(i); err != nil {
		return i, err
	}
	b := s.b
	i++ // '{'
	if i < len(b) && b[i] == '}' {
		s.depth--
		return i + 1, nil
	}
	prevKey, prevSimple := []byte(nil), false
	for first := true; ; first = false {
		if i >= len(b) || b[i] != '"' {
			return i, errAt(i, "unexpected %s in an object, want a key", describe(b, i))
		}
		keyStart := i
		// The common key, plain ASCII, without a call to str.
		keyEnd, simple := skipPlain(b, i+1), true
		if keyEnd < len(b) && b[keyEnd] == '"' {
			keyEnd++
		} else {
			var err error
			if keyEnd, simple, err = s.str(i); err != nil {
				return i, err
			}
		}
		key := b[keyStart+1 : keyEnd-1]
		if !first && !keyAfter(prevKey, prevSimple, key, simple) {
			return keyStart, errAt(keyStart, "key %s is out of order or repeated: canonical JSON sorts keys", strconv.Quote(string(key)))
		}
		prevKey, prevSimple = key, simple
		i = keyEnd
		if i >= len(b) || b[i] != ':' {
			return i, errAt(i, "unexpected %s after a key, want ':'", describe(b, i))
		}
		i++
		valStart := i
		var err error
		if i, err = s.value(i); err != nil {
			return i, err
		}
		if top != nil {
			if m := top.slot(key); m != nil {
				*m = member{found: true, key: keyStart, val: valStart, end: i}
			}
		}
		if i >= len(b) {
			return i, errAt(i, "unexpected end of line in an object")
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			s.depth--
			return i + 1, nil
		default:
			return i, errAt(i, "unexpected %s in an object, want ',' or '}'", describe(b, i))
		}
	}
}
