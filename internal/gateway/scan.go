package gateway

import "bytes"

// maxEvent bounds one event (or JSON element) a scanner holds: a bigger
// one is passed on to the agent but not read.
const maxEvent = 8 << 20

// sseScanner splits a server-sent event stream (the WHATWG EventSource
// format: lines ended by LF, CRLF or CR; "data:" lines joined by LF; a
// blank line ends an event) as its bytes arrive, in any pieces, and
// calls event with each event's data. Comments and other fields are
// skipped. Written here because the stream is only looked at, never
// changed, and no SSE library reads a byte stream it does not own.
type sseScanner struct {
	event func(data []byte)
	// skip, when set, says which events to pass over by their name (the
	// event field, which comes before their data): their data is neither
	// kept nor handed on.
	skip func(name []byte) bool
	line []byte // the current line, while it spans writes
	data []byte // the current event's data
	// has is true once the current event has a data line; over once it
	// passed maxEvent or skip said so (it is then skipped); cr once the
	// last byte seen ended a line with CR, so that a following LF ends
	// nothing.
	has, over, cr bool
}

func (s *sseScanner) write(p []byte) {
	if s.cr && len(p) > 0 && p[0] == '\n' {
		p = p[1:]
	}
	s.cr = false
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			s.line = append(s.line, p...)
			if len(s.line) > maxEvent {
				s.line, s.over = s.line[:0], true
			}
			return
		}
		line := p[:i]
		if len(s.line) > 0 {
			line = append(s.line, line...)
			s.line = s.line[:0]
		}
		s.field(line)
		if p[i] == '\r' {
			if i+1 == len(p) {
				s.cr = true
			} else if p[i+1] == '\n' {
				i++
			}
		}
		p = p[i+1:]
	}
}

// field reads one whole line.
func (s *sseScanner) field(line []byte) {
	if len(line) == 0 {
		if s.has && !s.over {
			s.event(s.data)
		}
		s.data, s.has, s.over = s.data[:0], false, false
		return
	}
	if name, ok := bytes.CutPrefix(line, []byte("event:")); ok {
		if s.skip != nil && s.skip(bytes.TrimLeft(name, " ")) {
			s.over = true
		}
		return
	}
	v, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || s.over {
		return
	}
	v, _ = bytes.CutPrefix(v, []byte(" "))
	if s.has {
		s.data = append(s.data, '\n')
	}
	s.data, s.has = append(s.data, v...), true
	if len(s.data) > maxEvent {
		s.data, s.over = s.data[:0], true
	}
}

// end dispatches an event the stream ended without a blank line after.
func (s *sseScanner) end() {
	if len(s.line) > 0 {
		s.field(s.line)
		s.line = s.line[:0]
	}
	s.field(nil)
}

// arrayScanner splits a JSON array of objects, as its bytes arrive, into
// its elements: what Gemini's streamGenerateContent sends without
// alt=sse. It keeps track of strings and nesting only, which is all it
// takes to find where each element ends.
type arrayScanner struct {
	element func(obj []byte)
	buf     []byte
	depth   int
	str     bool // inside a string
	esc     bool // after a backslash in a string
	over    bool
}

func (s *arrayScanner) write(p []byte) {
	start := -1 // where the current element starts in p, when it does
	if s.depth >= 2 {
		start = 0
	}
	for i, c := range p {
		switch {
		case s.str:
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.str = false
			}
		case c == '"':
			s.str = true
		case c == '{' || c == '[':
			s.depth++
			if s.depth == 2 {
				start = i
			}
		case c == '}' || c == ']':
			s.depth--
			if s.depth == 1 && start >= 0 {
				s.take(p[start : i+1])
				if !s.over {
					s.element(s.buf)
				}
				s.buf, s.over, start = s.buf[:0], false, -1
			}
		}
	}
	if start >= 0 {
		s.take(p[start:])
	}
}

// take adds b to the current element, up to maxEvent.
func (s *arrayScanner) take(b []byte) {
	if s.over {
		return
	}
	if len(s.buf)+len(b) > maxEvent {
		s.buf, s.over = s.buf[:0], true
		return
	}
	s.buf = append(s.buf, b...)
}
