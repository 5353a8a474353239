package check

import (
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/markdown"
)

// maxQuote bounds how much of a pattern, needle or match a Reason quotes.
const maxQuote = 80

// quote returns s as a Go-quoted string, cut to n characters with an ellipsis
// so a Reason stays one readable line (markdown.Quote).
func quote(s string, n int) string { return markdown.Quote(s, n) }

// lastChars returns the last n characters of s.
func lastChars(s string, n int) string {
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s
	}
	skip := count - n
	for j := range s {
		if skip == 0 {
			return s[j:]
		}
		skip--
	}
	return ""
}
