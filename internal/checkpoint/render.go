package checkpoint

import (
	"strings"
	"unicode"
)

// terminalSafe makes untrusted text harmless on a terminal: invalid UTF-8,
// control characters (escape sequences start with one) and bidirectional
// overrides become U+FFFD; newlines stay, and tabs become spaces.
func terminalSafe(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			return '\uFFFD'
		}
		return r
	}, strings.ReplaceAll(s, "\r\n", "\n"))
}
