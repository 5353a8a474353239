package frames

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// signalPrefixes begin the line signals' lines.
var signalPrefixes = []string{string(ReportCreated) + ":", string(TaskError) + ":", string(ErrorContext) + ":"}

// lineScanner keeps the start of the current output line while it may still
// be a line signal, and no more than max bytes of it.
type lineScanner struct {
	buf  []byte
	max  int
	over bool // the line is longer than max
	skip bool // the line cannot be a signal
}

func (l *lineScanner) add(b []byte) {
	if l.skip || len(b) == 0 {
		return
	}
	if room := l.max - len(l.buf); len(b) > room {
		b, l.over = b[:room], true
	}
	l.buf = append(l.buf, b...)
	if !maySignal(l.buf) {
		l.skip, l.buf = true, l.buf[:0]
	}
}

// maySignal reports whether a line beginning with b may be a line signal.
func maySignal(b []byte) bool {
	for _, kw := range signalPrefixes {
		n := min(len(b), len(kw))
		if string(b[:n]) == kw[:n] {
			return true
		}
	}
	return false
}

// end finishes the line, returning it when it may be a signal.
func (l *lineScanner) end() (line []byte, over, ok bool) {
	line, over, ok = l.buf, l.over, !l.skip && len(l.buf) > 0
	l.buf, l.over, l.skip = l.buf[:0], false, false
	return bytes.TrimSuffix(line, []byte("\r")), over, ok
}

// endLine is called at every line end of the clean output (and at Close).
func (p *Parser) endLine() {
	line, over, ok := p.lines.end()
	if !ok {
		return
	}
	typ, rest, found := bytes.Cut(line, []byte(":"))
	if !found {
		return // a line that is a prefix of a keyword, such as "TASK_"
	}
	if over {
		p.malformed(fmt.Sprintf("the %s line is longer than %d bytes; it is kept in the output but not reported", typ, p.lines.max), line)
		return
	}
	payload := strings.ToValidUTF8(strings.TrimSpace(string(rest)), "\uFFFD")
	e := Event{Type: Type(typ), Payload: payload, Raw: string(line)}
	switch e.Type {
	case ReportCreated:
		if payload == "" {
			p.malformed("the REPORT_CREATED line names no path (write REPORT_CREATED: <path>)", line)
			return
		}
		e.Path = payload
	case TaskError:
		if payload == "" {
			p.malformed("the TASK_ERROR line is empty (write TASK_ERROR: <type> - <message>)", line)
			return
		}
		// Without " - " the whole text is the message.
		if code, msg, ok := strings.Cut(payload, " - "); ok {
			e.Code, e.Message = strings.TrimSpace(code), strings.TrimSpace(msg)
		} else {
			e.Message = payload
		}
	case ErrorContext:
		if !json.Valid([]byte(payload)) {
			p.malformed("the ERROR_CONTEXT line does not carry valid JSON (write ERROR_CONTEXT: <json>)", line)
			return
		}
	default:
		return
	}
	p.event(e)
}
