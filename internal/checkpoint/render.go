package checkpoint

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/comment"
)

// The helpers below render untrusted text safely in a comment. They are
// written by hand because no library escapes GitHub-flavoured Markdown;
// they match internal/progress, whose helpers are not exported.

// markerRE finds text that could pass for one of optr's hidden markers.
var markerRE = regexp.MustCompile(`<!--(\s*)optr:`)

// defang breaks anything in untrusted text that looks like an optr marker
// (a zero-width space after "optr"), so that a comment quoting it is never
// found as the comment that marker names.
func defang(s string) string {
	return markerRE.ReplaceAllString(s, "<!--${1}optr\u200b:")
}

// fenced renders untrusted multi-line text as a code block.
func fenced(s string) string {
	return comment.Fence(defang(strings.ToValidUTF8(s, "\uFFFD")))
}

// inlineSpecial are the characters that start Markdown inside a line on
// GitHub: code, emphasis, strike-through, links and images, HTML and
// entities, table cells, math, and the escape itself. Line-start syntax
// (headings, lists, quotes) cannot occur: inline text never starts a line.
const inlineSpecial = "\\`*_~[]!<>&|$"

// inline renders untrusted text as inert Markdown on one line, cut to at
// most n characters: the characters in inlineSpecial are
// backslash-escaped, so no emphasis, link, HTML or table survives, and a
// zero-width space after '@' and '#' keeps GitHub from turning the text
// into mentions or issue references.
func inline(s string, n int) string {
	var b strings.Builder
	for _, r := range flatten(s, n) {
		if r < utf8.RuneSelf && strings.ContainsRune(inlineSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' || r == '#' {
			b.WriteRune('\u200b')
		}
	}
	return b.String()
}

// code renders an identifier (a checkpoint, run or workflow id, which
// Validate limits to [A-Za-z0-9._-]) as inline code.
func code(s string) string {
	return "`" + strings.ReplaceAll(flatten(s, 120), "`", "'") + "`"
}

// flatten makes s valid UTF-8 on one line without control characters or
// optr markers, cut to at most n characters (ending in "…").
func flatten(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = defang(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) > n {
		s = comment.Truncate(s, n-1) + "…"
	}
	return s
}

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
