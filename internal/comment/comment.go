// Package comment holds what every comment optr posts on an issue shares:
// the hidden marker that lets a retry find and edit its own comment instead of
// posting another, and GitHub's limit on a comment body.
package comment

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
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
	return markdown.Truncate(body, MaxBody-utf8.RuneCountInString(note)) + note
}
