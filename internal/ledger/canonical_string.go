package ledger

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// plainString marks the bytes that stand for themselves inside a canonical
// string: printable ASCII other than '"' and '\\'. DEL (0x7f) is not escaped
// by RFC 8785.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str checks a string starting at b[i] == '"' and returns the offset past
// its closing quote. simple is true when the string is plain ASCII without
// escapes, so that it compares bytewise like its UTF-16 code units.
func (s *canonScanner) str(i int) (end int, simple bool, err error) {
	b := s.b
	i++ // '"'
	simple = true
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return i, false, errAt(i, "unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, simple, nil
		case c == '\\':
			simple = false
			n, err := escape(b, i)
			if err != nil {
				return i, false, err
			}
			i += n
		case c < 0x20:
			return i, false, errAt(i, "control character %s must be escaped", describe(b, i))
		default: // c >= 0x80
			simple = false
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, false, errAt(i, "invalid UTF-8")
			}
			i += size
		}
	}
}

// skipPlain returns the offset of the first byte at or after i that is not
// plainString. It tests sixteen bytes at a time: most of a ledger line is
// string content (hashes, names), and this loop is the verifier's hot spot.
func skipPlain(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	rest := b[i:] // resliced, so that the loads need no bounds checks
	for ; len(rest) >= 16; rest = rest[16:] {
		s0 := specialBytes(binary.LittleEndian.Uint64(rest[:8]))
		s1 := specialBytes(binary.LittleEndian.Uint64(rest[8:16]))
		if s0|s1 != 0 {
			j := len(b) - len(rest)
			if s0 == 0 {
				j, s0 = j+8, s1
			}
			return j + bits.TrailingZeros64(s0)/8
		}
	}
	for k, c := range rest {
		if !plainString[c] {
			return len(b) - len(rest) + k
		}
	}
	return len(b)
}

// specialBytes sets the high bit of the first byte of x (little endian)
// that is not plainString, and possibly of later ones; it is 0 when all
// eight are plain. A byte >= 0x80 has its high bit already; x - 0x20 sets
// it for a byte < 0x20, and q - 1 for a byte of q that is 0 (x is '"' or
// '\\'). A subtraction borrows into a byte only from a byte below it that
// is special itself, so the first byte marked is the first special one.
func specialBytes(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	return (x | (x - 0x20*ones) | ((x ^ '"'*ones) - ones) | ((x ^ '\\'*ones) - ones)) & highs
}

// escape checks the escape sequence at b[i] == '\\' and returns its length.
// Canonical JSON uses the two-character escapes for '"', '\\' and
// \b \f \n \r \t, and \u00xx (lowercase hex) only for the other control
// characters; everything else is written as itself.
func escape(b []byte, i int) (int, error) {
	if i+1 >= len(b) {
		return 0, errAt(i, "unterminated escape")
	}
	switch b[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		if i+6 > len(b) || b[i+2] != '0' || b[i+3] != '0' || (b[i+4] != '0' && b[i+4] != '1') {
			return 0, errAt(i, "\\u escape is not canonical: only control characters are escaped")
		}
		lo := unhex(b[i+5])
		if lo < 0 {
			return 0, errAt(i, "\\u escape is not canonical: use lowercase hex digits")
		}
		switch c := int(b[i+4]-'0')<<4 | lo; c {
		case '\b', '\f', '\n', '\r', '\t':
			return 0, errAt(i, "\\u%04x is not canonical: use the short escape", c)
		}
		return 6, nil
	default:
		return 0, errAt(i, "escape %s is not canonical", clip(b[i:i+2]))
	}
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// keyAfter reports whether key b sorts strictly after key a in RFC 8785
// order: by UTF-16 code units of the decoded keys.
func keyAfter(a []byte, aSimple bool, b []byte, bSimple bool) bool {
	if aSimple && bSimple {
		// Keys are short: a loop beats a call to bytes.Compare.
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				return a[i] < b[i]
			}
		}
		return len(a) < len(b)
	}
	ua, ub := utf16Key(a), utf16Key(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// utf16Key decodes the body of a canonical string into UTF-16 code units.
func utf16Key(raw []byte) []uint16 {
	out := make([]uint16, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			switch raw[i+1] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				out = append(out, uint16(unhex(raw[i+4])<<4|unhex(raw[i+5])))
				i += 6
				continue
			default: // '"' or '\\'
				out = append(out, uint16(raw[i+1]))
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, uint16(c))
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			out = utf16.AppendRune(out, r)
			i += size
		}
	}
	return out
}
