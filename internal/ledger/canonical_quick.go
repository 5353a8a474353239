package ledger

import (
	"encoding/binary"
	"math/bits"
)

// This file holds the verifier's fast path for canonical JSON: one loop
// over the bytes, without a call per value, without an error to build,
// and with an explicit nesting stack. It takes only the shapes ledger
// lines are made of (plain ASCII strings and keys, short integers and
// decimals, shallow nesting) and answers true only for canonical
// documents; anything else, canonical or not, it hands to the careful
// checker in canonical.go, which decides and says what is wrong.
// FuzzQuickCanonicalAgreesWithChecker holds it to that.
//
// It takes only plain documents (plainPrefix), and finds out in one pass
// eight bytes at a time, before it walks the values: outside a string
// the bytes it refuses are no JSON, and inside one only the careful
// checker follows them. The walk then ends each string, keys included,
// at the next quote, eight bytes at a time (nextQuote): a ledger line is
// mostly strings.

// quickDepth is the deepest nesting quickCanonical follows.
const quickDepth = 16

// quickLevel is the state of an open container while a container inside
// it is being read.
type quickLevel struct {
	obj              bool
	keyStart, keyEnd int
	val              int
}

// quickCanonical reports whether b is a canonical JSON document of the
// shapes it knows; false means that checkCanonical must decide. With top
// non-nil and an object at the top, it records where the common entry
// members are.
func quickCanonical(b []byte, top *topMembers) bool {
	return plainPrefix(b) == len(b) && quickPlain(b, top)
}

// quickPlain is quickCanonical of a plain document: plainPrefix(b) is
// len(b).
func quickPlain(b []byte, top *topMembers) bool {
	var stack [quickDepth]quickLevel
	n, i, depth := len(b), 0, 0
	// The innermost open container: an object or an array; for an object
	// the body of its last key, b[keyStart:keyEnd] (keyEnd 0: none yet),
	// and where that key's value starts.
	obj, keyStart, keyEnd, val := false, 0, 0, 0
	for {
		// A value starts at b[i].
		if i >= n {
			return false
		}
		switch c := b[i]; {
		case c == '"':
			j := nextQuote(b, i+1)
			if j >= n {
				return false
			}
			i = j + 1
		case c == '{' || c == '[':
			if i+1 < n && b[i+1] == c+2 { // '}' or ']': empty
				i += 2
				break
			}
			if depth == quickDepth {
				return false
			}
			stack[depth] = quickLevel{obj: obj, keyStart: keyStart, keyEnd: keyEnd, val: val}
			depth++
			obj, keyEnd = c == '{', 0
			i++
			if obj {
				goto key
			}
			continue
		case c == 't' || c == 'n':
			if i+4 > n || string(b[i:i+4]) != "true" && string(b[i:i+4]) != "null" {
				return false
			}
			i += 4
		case c == 'f':
			if i+5 > n || string(b[i:i+5]) != "false" {
				return false
			}
			i += 5
		default:
			// Integers here, without a call: most numbers of a line are;
			// quickNumber takes the others.
			j := i
			if c == '-' {
				j++
			}
			start := j
			for j < n && b[j]-'0' <= 9 {
				j++
			}
			if j < n && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
				var ok bool
				if j, ok = quickNumber(b, i); !ok {
					return false
				}
			} else if d := j - start; d == 0 || d > 15 || b[start] == '0' && (d > 1 || c == '-') {
				return false // not a number, a leading zero, more than 15 digits, -0
			}
			i = j
		}
		// A value ends at b[i]: close containers up to the next value or
		// key.
		for {
			if depth == 0 {
				return i == n
			}
			if i >= n {
				return false
			}
			c := b[i]
			i++
			if obj {
				if depth == 1 && top != nil {
					if m := top.slot(b[keyStart:keyEnd]); m != nil {
						*m = member{found: true, key: keyStart - 1, val: val, end: i - 1}
					}
				}
				if c == ',' {
					goto key
				}
				if c != '}' {
					return false
				}
			} else {
				if c == ',' {
					break
				}
				if c != ']' {
					return false
				}
			}
			depth--
			lv := &stack[depth]
			obj, keyStart, keyEnd, val = lv.obj, lv.keyStart, lv.keyEnd, lv.val
		}
		continue
	key:
		// A key of the innermost object starts at b[i], and its value
		// after the ':'.
		if i >= n || b[i] != '"' {
			return false
		}
		j := nextQuote(b, i+1)
		if j+1 >= n || b[j+1] != ':' {
			return false
		}
		// Plain ASCII keys sort bytewise like their UTF-16 code units;
		// most differ in their first byte.
		if keyEnd != 0 && (keyEnd == keyStart || j == i+1 || b[keyStart] >= b[i+1]) &&
			string(b[keyStart:keyEnd]) >= string(b[i+1:j]) {
			return false
		}
		keyStart, keyEnd = i+1, j
		i, val = j+2, j+2
	}
}

// quickNumber takes a number at b[i] that prints as itself in ECMAScript
// because it is an integer of at most 15 digits (but -0) or a decimal
// shortDecimal accepts, or one that ecmaText prints as itself (a sum of
// costs with its 17 significant digits), and returns the offset past it.
func quickNumber(b []byte, i int) (int, bool) {
	n := len(b)
	tok := i
	neg := b[i] == '-'
	if neg {
		i++
	}
	start := i
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && '1' <= b[i] && b[i] <= '9':
		for i < n && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return i, false
	}
	intDigits := i - start
	if i < n && b[i] == '.' {
		i++
		frac := i
		for i < n && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == frac {
			return i, false
		}
		if shortDecimal(b[start:i], intDigits) {
			return i, true
		}
		want, err := ecmaText(b[tok:i])
		return i, err == nil && want == string(b[tok:i])
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		return i, false
	}
	return i, intDigits <= 15 && !(neg && b[start] == '0')
}

// plainPrefix returns the length of the longest prefix of b free of the
// bytes quickCanonical never takes: control characters, '\\' and bytes
// from 0x80. It looks at eight bytes at a time.
func plainPrefix(b []byte) int {
	const ones = 0x0101010101010101
	k := 0
	for ; k+8 <= len(b); k += 8 {
		x := binary.LittleEndian.Uint64(b[k:])
		// The high bit of the first byte that is not plain, and maybe of
		// later ones: a byte < 0x20 borrows in x - 0x20…, '\\' in its xor
		// - 1, and a byte from 0x80 has it already. A borrow reaches a
		// byte only from a byte before it that is not plain itself.
		if bad := (x | (x - 0x20*ones) | ((x ^ '\\'*ones) - ones)) & (0x80 * ones); bad != 0 {
			return k + bits.TrailingZeros64(bad)/8
		}
	}
	for ; k < len(b); k++ {
		if c := b[k]; c < 0x20 || c >= 0x80 || c == '\\' {
			break
		}
	}
	return k
}

// nextQuote returns the offset of the first '"' at or after i in b, whose
// bytes from i are plain (plainPrefix), or len(b) when there is none. It
// looks at eight bytes at a time.
func nextQuote(b []byte, i int) int {
	const ones = 0x0101010101010101
	for ; i+8 <= len(b); i += 8 {
		// Each byte of y is at most 0x7f, and 0 where b has a '"': only
		// there does subtracting 1 set its high bit (or borrow, into the
		// bytes after it).
		y := binary.LittleEndian.Uint64(b[i:]) ^ '"'*ones
		if q := (y - ones) & (0x80 * ones); q != 0 {
			return i + bits.TrailingZeros64(q)/8
		}
	}
	for ; i < len(b) && b[i] != '"'; i++ {
	}
	return i
}
