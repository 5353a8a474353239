package frames

import (
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/markdown"
)

// Type is the kind of an Event: one of the four frame types or the three
// line signals. Its value is the keyword as written in the stream.
type Type string

// The frame types.
const (
	Ready   Type = "READY"
	Handoff Type = "HANDOFF"
	Error   Type = "ERROR"
	Result  Type = "RESULT"
)

// The line signals.
const (
	ReportCreated Type = "REPORT_CREATED"
	TaskError     Type = "TASK_ERROR"
	ErrorContext  Type = "ERROR_CONTEXT"
)

// IsFrame reports whether t is a control frame type (not a line signal).
func (t Type) IsFrame() bool {
	switch t {
	case Ready, Handoff, Error, Result:
		return true
	}
	return false
}

// Event is one well-formed frame or line signal, in stream order.
type Event struct {
	// Type says what was seen.
	Type Type
	// Prefix is "OPTR" or "ODEI" for frames, empty for line signals.
	Prefix string
	// Stage is the stage a READY frame announces or a HANDOFF frame hands to.
	Stage string
	// TS is a READY frame's "ts", as sent.
	TS string
	// Code is an ERROR frame's "code" or a TASK_ERROR line's <type>.
	Code string
	// Message is an ERROR frame's "message" or a TASK_ERROR line's <message>.
	Message string
	// TTV is a RESULT frame's "ttv_ms" as a duration.
	TTV time.Duration
	// Path is a REPORT_CREATED line's path.
	Path string
	// Payload is the text after "TYPE:" (frames) or "KEYWORD:" (line
	// signals), without surrounding white space and as valid UTF-8: the JSON
	// of READY, ERROR, RESULT and ERROR_CONTEXT, the stage of HANDOFF.
	Payload string
	// Raw is the frame or line exactly as written, without the line's end.
	Raw string
}

// Malformed describes text that started like a frame or line signal but was
// not one. It was ignored: a malformed frame is dropped from the output, a
// malformed line signal stays in it (it is an ordinary line) but is not
// reported as an Event.
type Malformed struct {
	// Reason says what was wrong, in words for a log.
	Reason string
	// Excerpt is the start of the offending text: at most 160 characters,
	// valid UTF-8, "…" marking a cut (markdown.Shorten).
	Excerpt string
}

// Error implements error, so a Malformed can be logged as one.
func (m Malformed) Error() string {
	return "malformed control frame or signal: " + m.Reason + ": " + m.Excerpt
}

const maxExcerpt = 160

// excerpt returns the start of b for a log line.
func excerpt(b []byte) string {
	return markdown.Shorten(strings.ToValidUTF8(string(b), "\uFFFD"), maxExcerpt)
}
