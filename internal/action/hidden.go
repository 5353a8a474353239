package action

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Hidden counts what StripHidden removed from issue text: what a person
// reading the issue on GitHub does not see, but an agent reading the raw
// body would.
type Hidden struct {
	// Comments is the number of HTML comments (<!-- … -->) removed.
	Comments int `json:"comments,omitempty"`
	// Invisible is the number of zero-width, bidirectional-control and
	// Unicode tag characters removed.
	Invisible int `json:"invisible,omitempty"`
}

// Any reports whether anything was removed.
func (h Hidden) Any() bool { return h.Comments > 0 || h.Invisible > 0 }

// String says what was removed in words, for the intent file and the log:
// "2 HTML comments and 5 invisible characters (zero-width or bidirectional
// controls)". It is empty when nothing was.
func (h Hidden) String() string {
	var parts []string
	if h.Comments > 0 {
		parts = append(parts, plural(h.Comments, "HTML comment", "HTML comments"))
	}
	if h.Invisible > 0 {
		parts = append(parts, plural(h.Invisible, "invisible character", "invisible characters")+" (zero-width, bidirectional or tag controls)")
	}
	return strings.Join(parts, " and ")
}

// Note is the sentence the intent file carries when something was removed,
// or "" when nothing was.
func (h Hidden) Note() string {
	if !h.Any() {
		return ""
	}
	return fmt.Sprintf("optr removed %s from the issue text before giving it to the agents: GitHub does not show them, so they are not part of what the issue visibly asks.", h)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// StripHidden removes from Markdown text what GitHub does not display, so
// that the agents see what people see: HTML comments outside code (fenced
// blocks and `code spans` show them literally, so they stay), and
// invisible format characters anywhere. Visible text is kept as it is. An
// HTML comment that is never closed hides the rest of the text, as on
// GitHub. Bytes that are not UTF-8 are dropped first, so that removing a
// character can never join the bytes around it into a hidden one.
func StripHidden(text string) (string, Hidden) {
	var h Hidden
	text = strings.ToValidUTF8(text, "")
	text = stripInvisible(text, &h)
	return stripComments(text, &h), h
}

// invisible reports whether r is a character that renders as nothing but
// can carry or reorder text: zero-width characters, bidirectional controls,
// the soft hyphen and Unicode tag characters (which can spell out a whole
// hidden sentence).
func invisible(r rune) bool {
	switch {
	case r == '\u00ad', r == '\u061c', r == '\u180e',
		r >= '\u200b' && r <= '\u200f', // zero-width space, (non-)joiner, LRM, RLM
		r >= '\u202a' && r <= '\u202e', // bidirectional embeddings and overrides
		r >= '\u2060' && r <= '\u2064', // word joiner, invisible operators
		r >= '\u2066' && r <= '\u2069', // bidirectional isolates
		r == '\ufeff',                  // zero-width no-break space (BOM)
		r >= 0xe0000 && r <= 0xe007f:   // tag characters
		return true
	}
	return false
}

func stripInvisible(text string, h *Hidden) string {
	if !strings.ContainsFunc(text, invisible) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i, r := range text {
		if invisible(r) {
			h.Invisible++
			continue
		}
		// Copy the bytes, not r: an invalid byte stays as it was.
		_, size := utf8.DecodeRuneInString(text[i:])
		b.WriteString(text[i : i+size])
	}
	return b.String()
}

// stripComments removes HTML comments outside fenced code blocks and code
// spans, line by line so that fences are recognised.
func stripComments(text string, h *Hidden) string {
	if !strings.Contains(text, "<!--") {
		return text
	}
	var b strings.Builder
	fence := ""        // the open fence's marker, "" outside a fenced block
	inComment := false // inside a comment that began on an earlier line
	for _, line := range strings.SplitAfter(text, "\n") {
		if !inComment {
			if f := fenceMarker(line); f != "" {
				rest := strings.TrimLeft(line, " ")[len(f):]
				switch {
				case fence == "":
					fence = f
				case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(rest) == "":
					fence = ""
				}
				b.WriteString(line)
				continue
			}
			if fence != "" {
				b.WriteString(line)
				continue
			}
		}
		var kept string
		kept, inComment = stripLine(line, inComment, h)
		b.WriteString(kept)
	}
	return b.String()
}

// fenceMarker returns the run of ``` or ~~~ (three or more) a fence line
// starts with, after at most three spaces; "" when line is not a fence.
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// stripLine removes comments from one line outside fences. open says a
// comment is already open at the start of the line; the result says
// whether one is still open at its end. Code spans are copied as they are.
func stripLine(line string, open bool, h *Hidden) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(line); {
		if open {
			end := strings.Index(line[i:], "-->")
			if end < 0 {
				// The comment goes on: its line breaks are hidden too.
				return b.String(), true
			}
			i += end + len("-->")
			open = false
			continue
		}
		switch {
		case line[i] == '`':
			n := run(line[i:], '`')
			if close := strings.Index(line[i+n:], line[i:i+n]); close >= 0 {
				b.WriteString(line[i : i+n+close+n])
				i += n + close + n
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
		case strings.HasPrefix(line[i:], "<!--"):
			h.Comments++
			open = true
			i += len("<!--")
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String(), open
}

// run is the number of leading bytes of s equal to c.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}
