package progress

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/comment"
)

// markerRE finds text that could pass for one of optr's hidden markers.
var markerRE = regexp.MustCompile(`<!--(\s*)optr:`)

// defang breaks anything in untrusted text that looks like an optr marker
// (a zero-width space after "optr"), so that a comment quoting an agent's
// output is never found as the comment that marker names.
func defang(s string) string {
	return markerRE.ReplaceAllString(s, "<!--${1}optr\u200b:")
}

// fenced renders untrusted multi-line text as a code block.
func fenced(s string) string {
	return comment.Fence(defang(strings.ToValidUTF8(s, "\uFFFD")))
}

// plain renders untrusted text as inert Markdown on one line, cut to at
// most n characters: whitespace runs become one space, control characters
// go, every ASCII punctuation character is backslash-escaped (so no
// emphasis, link, HTML or table pipe survives), and a zero-width space
// after '@' and '#' keeps GitHub from turning the text into mentions or
// issue references.
func plain(s string, n int) string {
	s = oneLine(s, n)
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && unicode.IsPunct(r) || r < utf8.RuneSelf && unicode.IsSymbol(r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' || r == '#' {
			b.WriteRune('\u200b')
		}
	}
	return b.String()
}

// oneLine makes s valid UTF-8 on a single line without control characters,
// cut to at most n characters (with "…").
func oneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = comment.Truncate(s, n-1) + "…"
	}
	return s
}

// code renders an identifier (run id, workflow, hash, path) as inline code.
func code(s string) string {
	s = oneLine(s, 200)
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

// duration renders d for people: 850ms, 2.1s, 1m5s.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

// ms renders a millisecond count as a duration, "—" when zero.
func ms(n int64) string {
	if n <= 0 {
		return "—"
	}
	return duration(time.Duration(n) * time.Millisecond)
}

// thousands renders n with thousands separators, "—" when zero.
func thousands(n int64) string {
	if n == 0 {
		return "—"
	}
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// cost renders a cost in US dollars, "—" when zero (unknown price).
func cost(usd float64) string {
	if usd == 0 {
		return "—"
	}
	return fmt.Sprintf("$%.4f", usd)
}

// shortHash shows the first 12 characters of a hash or sha.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
