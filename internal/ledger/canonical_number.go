package ledger

import (
	"fmt"
	"strconv"

	"github.com/gowebpki/jcs"
)

// number checks a number: the RFC 8259 grammar, and the exact text
// ECMAScript's Number.prototype.toString gives for its double value.
func (s *canonScanner) number(i int) (int, error) {
	b := s.b
	start := i
	if b[i] == '-' {
		i++
	}
	digitsStart := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return i, errAt(i, "invalid number")
	}
	intDigits := i - digitsStart
	plainInt := true
	if i < len(b) && b[i] == '.' {
		plainInt = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, errAt(i, "invalid number: digits must follow '.'")
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	fracEnd := i
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		plainInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, errAt(i, "invalid number: digits must follow the exponent")
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	tok := b[start:i]
	// Integers of up to 15 digits are exact doubles and print as themselves;
	// only -0 prints differently (as 0).
	if plainInt && intDigits <= 15 {
		if len(tok) == 2 && tok[0] == '-' && tok[1] == '0' {
			return start, errAt(start, "-0 is not canonical: write 0")
		}
		return i, nil
	}
	if fracEnd == i && shortDecimal(b[digitsStart:i], intDigits) {
		return i, nil
	}
	want, err := ecmaText(tok)
	if err != nil {
		return start, errAt(start, "%v", err)
	}
	if want != string(tok) {
		return start, errAt(start, "number %s is not canonical: write %s", tok, want)
	}
	return i, nil
}

// ecmaText returns the text ECMAScript's Number.prototype.toString
// gives for the double value of tok, a number of the JSON grammar: its
// canonical form.
func ecmaText(tok []byte) (string, error) {
	f, err := strconv.ParseFloat(bytesString(tok), 64)
	if err != nil {
		return "", fmt.Errorf("number %s is out of range", tok)
	}
	want, err := jcs.NumberToJSON(f)
	if err != nil {
		return "", fmt.Errorf("number %s: %w", tok, err)
	}
	return want, nil
}

// shortDecimal reports, without converting, whether the unsigned number
// d (int digits, then '.' and fraction digits or nothing; never an
// exponent) is in ECMAScript's
// canonical form: at most 15 significant digits, no trailing zero in the
// fraction, and at least 1e-6 (below that ECMAScript switches to exponent
// notation). Any decimal of at most 15 significant digits survives the trip
// to a double and back (DBL_DIG), so no shorter decimal names the same
// double and the shortest round-trip form is d itself. Scores look like
// this, so the common case skips strconv.
func shortDecimal(d []byte, intDigits int) bool {
	if intDigits >= len(d) || d[intDigits] != '.' || d[len(d)-1] == '0' {
		return false
	}
	frac := d[intDigits+1:]
	sig := intDigits + len(frac)
	if intDigits == 1 && d[0] == '0' {
		lead := 0
		for lead < len(frac) && frac[lead] == '0' {
			lead++
		}
		if lead > 5 {
			return false
		}
		sig = len(frac) - lead
	}
	return sig <= 15
}
