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

// quickMaxLine bounds the documents quickCanonical takes: its map of
// quotes is on the stack. Ledger lines are about 1 KiB.
const quickMaxLine = 4<<10 - 1

// quoteMap has a bit for each byte of a document, set for a '"', and a
// two words of zeros past the end for closeQuote.
type quoteMap [quickMaxLine/64 + 3]uint64

// closeQuote returns the offset of the first '"' after the one at i,
// or -1. A window of the 64 bits from i+2 holds it for strings of 1 to
// 64 bytes, found without a branch that depends on the length.
func (q *quoteMap) closeQuote(i, n int) int {
	if i+1 < n && q[(i+1)>>6]>>((i+1)&63)&1 != 0 {
		return i + 1 // ""
	}
	t := i + 2
	if w := q[t>>6]>>(t&63) | q[t>>6+1]<<(64-t&63); w != 0 {
		return t + bits.TrailingZeros64(w)
	}
	for t = t | 63 + 1; t < n; t += 64 {
		if w := q[t>>6]; w != 0 {
			return t + bits.TrailingZeros64(w)
		}
	}
	return -1
}

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
	var quotes quoteMap
	if len(b) > quickMaxLine || !mapQuotes(b, &quotes) {
		return false
	}
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
			// mapQuotes checked that no string holds an escape.
			if i = quotes.closeQuote(i, n); i < 0 {
				return false
			}
			i++
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
			// An integer of at most 15 digits prints as itself, but for
			// -0; other numbers go to quickNumber.
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
				return false
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
		j := quotes.closeQuote(i, n)
		if j < 0 || j+1 >= n || b[j+1] != ':' {
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
// because it is an integer of at most 15 digits or a decimal shortDecimal
// accepts, and returns the offset past it.
func quickNumber(b []byte, i int) (int, bool) {
	n := len(b)
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
		return i, i > frac && shortDecimal(b[start:i], intDigits)
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		return i, false
	}
	return i, intDigits <= 15 && !(neg && b[start] == '0')
}

// mapQuotes reports whether every byte of b is printable ASCII or DEL
// other than '\\' (then a string in b holds no escape and no byte that must
// be escaped, and it ends at the next '"'), and sets the bits of quotes at
// the '"' of b. It looks at eight bytes at a time, and checks the bytes
// once at the end with the borrow tricks of specialBytes: a borrow marks a
// byte only above a special one.
func mapQuotes(b []byte, quotes *quoteMap) bool {
	var bad uint64
	k := 0
	for ; len(b) >= 64; b = b[64:] {
		q0, b0 := quoteBits(binary.LittleEndian.Uint64(b[0:8]))
		q1, b1 := quoteBits(binary.LittleEndian.Uint64(b[8:16]))
		q2, b2 := quoteBits(binary.LittleEndian.Uint64(b[16:24]))
		q3, b3 := quoteBits(binary.LittleEndian.Uint64(b[24:32]))
		q4, b4 := quoteBits(binary.LittleEndian.Uint64(b[32:40]))
		q5, b5 := quoteBits(binary.LittleEndian.Uint64(b[40:48]))
		q6, b6 := quoteBits(binary.LittleEndian.Uint64(b[48:56]))
		q7, b7 := quoteBits(binary.LittleEndian.Uint64(b[56:64]))
		bad |= b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7
		quotes[k] = q0 | q1<<8 | q2<<16 | q3<<24 | q4<<32 | q5<<40 | q6<<48 | q7<<56
		k++
	}
	var m uint64
	shift := 0
	for ; len(b) >= 8; b = b[8:] {
		q, bb := quoteBits(binary.LittleEndian.Uint64(b[0:8]))
		m |= q << shift
		bad |= bb
		shift += 8
	}
	if bad&0x8080808080808080 != 0 {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
		if c == '"' {
			m |= 1 << shift
		}
		shift++
	}
	quotes[k] = m
	return true
}

// quoteBits returns a bit for each of the eight bytes of x (little
// endian), set for a '"'; and bad, with a high bit for a byte that is not
// printable ASCII or DEL other than '\\' (and maybe for bytes above it).
// The bits are right only when bad has no high bit.
func quoteBits(x uint64) (quote, bad uint64) {
	const (
		ones   = 0x0101010101010101
		highs  = 0x8080808080808080
		gather = 0x0102040810204080 // moves bit 8k to bit 56+k
	)
	bad = x | (x - 0x20*ones) | ((x ^ '\\'*ones) - ones)
	// Without bytes >= 0x80 no addition carries across bytes: q + 0x7f
	// has its high bit clear exactly where q is 0, that is x is '"'.
	q := x ^ '"'*ones
	hit := ^(q + 0x7f*ones) & highs
	return (hit >> 7) * gather >> 56, bad
}
