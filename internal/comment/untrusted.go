package comment

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The helpers below render untrusted text (agent output, issue text, error
// messages) safely inside a comment. They are written by hand because no
// library escapes GitHub-flavoured Markdown for this purpose.

// markerRE finds text that could pass for one of optr's hidden markers.
var markerLikeRE = regexp.MustCompile(`<!--(\s*)optr:`)

// Defang breaks anything in untrusted text that looks like an optr marker
// (a zero-width space after "optr"), so that a comment quoting the text is
// never found as the comment that marker names.
func Defang(s string) string {
	return markerLikeRE.ReplaceAllString(s, "<!--${1}optr\u200b:")
}

// Untrusted renders untrusted multi-line text as a code block that its
// content can neither close nor use to fake a marker.
func Untrusted(s string) string {
	return Fence(Defang(strings.ToValidUTF8(s, "\uFFFD")))
}

// Inline renders untrusted text as inert Markdown on one line, cut to at
// most n characters: whitespace runs become one space, control characters
// go, every ASCII punctuation character is backslash-escaped (so no
// emphasis, link, HTML, marker or table pipe survives), and a zero-width
// space after '@' and '#' keeps GitHub from turning the text into mentions
// or issue references.
func Inline(s string, n int) string {
	s = OneLine(s, n)
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' || r == '#' {
			b.WriteRune('\u200b')
		}
	}
	return b.String()
}

// OneLine makes s valid UTF-8 on a single line without control characters,
// cut to at most n characters (ending in "…").
func OneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = Truncate(s, n-1) + "…"
	}
	return s
}

// Code renders an identifier (run id, workflow, hash, path) as inline code
// that no backtick inside it can close early.
func Code(s string) string {
	s = OneLine(s, 200)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
