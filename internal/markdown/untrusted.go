package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// The helpers below render untrusted text (agent output, issue text, error
// messages) safely inside a comment. They are written by hand because no
// library escapes GitHub-flavoured Markdown for this purpose.

// markerRE finds text that could pass for one of optr's hidden markers.
var markerLikeRE = lazyregexp.New(`<!--(\s*)optr:`)

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
// go, and only the characters Markdown would act on are backslash-escaped,
// so that no emphasis, code, link, HTML, marker, table pipe, strikethrough
// or math survives, while ordinary text reads as written (email
// notifications show the raw Markdown: "azure-openai", not
// "azure\-openai"). A zero-width space after '@' and '#' keeps GitHub
// from turning the text into mentions or issue references.
func Inline(s string, n int) string {
	s = Defang(OneLine(s, n))
	var b strings.Builder
	for i, r := range s {
		if needsEscape(s, i, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' || r == '#' {
			b.WriteRune('\u200b')
		}
	}
	return b.String()
}

// entityRE matches an HTML character reference, which Markdown decodes.
var entityRE = lazyregexp.New(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// needsEscape reports whether r, at byte i of the one-line text s, would
// mean something to GitHub-flavoured Markdown where Inline's callers put
// it (inside a line, a list item, a table cell or bold text), or at the
// start of a line, where Inline may also land.
func needsEscape(s string, i int, r rune) bool {
	switch r {
	case '\\', '`', '*', '[', ']', '<', '|', '~', '$':
		return true
	case '_':
		// Intraword underscores never make emphasis (snake_case).
		return !wordChar(s, i-1, true) || !wordChar(s, i+1, false)
	case '&':
		return entityRE.MatchString(s[i:])
	case '#', '>', '-', '+', '=':
		return i == 0
	case '.', ')':
		// "1." or "1)" at the start would begin an ordered list.
		return i > 0 && i <= 9 && strings.Trim(s[:i], "0123456789") == ""
	}
	return false
}

// wordChar reports whether the character ending just before (back) or
// starting at i in s is a letter or digit.
func wordChar(s string, i int, back bool) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	var r rune
	if back {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// OneLine makes s valid UTF-8 on a single line without control characters
// and without format characters (bidirectional overrides and isolates,
// zero-width characters: Unicode's Cf), cut to at most n characters
// (ending in "…"): no text it shows, on a terminal or a page, can move a
// cursor, recolour a terminal, or show itself reversed.
func OneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return ' '
		case unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	return Shorten(strings.Join(strings.Fields(s), " "), n)
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
