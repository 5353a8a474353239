// Package comment holds what every comment optr posts on an issue shares:
// the hidden marker that lets a retry find and edit its own comment instead of
// posting another, and GitHub's limit on a comment body.
package comment

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// MaxBody is GitHub's limit on a comment body, in characters.
const MaxBody = 65536

// Marker kinds.
const (
	KindRun        = "run"
	KindCheckpoint = "checkpoint"
	KindEscalation = "escalation"
	// KindReply marks a short answer to a command (`/optr choose 9`, an
	// answer to a decided checkpoint), one per workflow run.
	KindReply = "reply"
)

// Marker returns the hidden marker for a comment of kind about id, e.g.
// <!-- optr:run=123-1 -->.
func Marker(kind, id string) string {
	return fmt.Sprintf("<!-- optr:%s=%s -->", kind, id)
}

var markerRE = lazyregexp.New(`<!-- optr:([a-z]+)=([A-Za-z0-9._-]+) -->`)

// ParseMarker returns the kind and id of the first optr marker in body.
func ParseMarker(body string) (kind, id string, ok bool) {
	m := markerRE.FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// HasMarker reports whether body carries exactly the marker for kind and id.
func HasMarker(body, kind, id string) bool {
	return strings.Contains(body, Marker(kind, id))
}

// Fit returns body cut to at most MaxBody characters. The cut keeps the
// first line (where the marker lives) and ends with a note saying that the
// rest was cut and where the whole text is.
func Fit(body, whereWhole string) string {
	if utf8.RuneCountInString(body) <= MaxBody {
		return body
	}
	note := "\n\n… cut to fit GitHub's comment limit"
	if whereWhole != "" {
		note += "; the whole text is in " + whereWhole
	}
	note += ".\n"
	return Truncate(body, MaxBody-utf8.RuneCountInString(note)) + note
}

// Truncate cuts s to at most n characters without splitting a character.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Fence wraps text in a Markdown code fence long enough that no run of
// backticks inside text can close it early.
func Fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}

// Collapse renders text as a fenced block inside <details> with summary,
// cut to limit characters (with a pointer to whereWhole when cut).
func Collapse(summary, text string, limit int, whereWhole string) string {
	cut := ""
	if utf8.RuneCountInString(text) > limit {
		text = Truncate(text, limit)
		cut = "\n\n… cut"
		if whereWhole != "" {
			cut += "; the whole text is in " + whereWhole
		}
	}
	return "<details><summary>" + summary + "</summary>\n\n" + Fence(text) + cut + "\n\n</details>"
}
