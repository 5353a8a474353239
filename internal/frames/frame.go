package frames

import (
	"bytes"
	"fmt"
)

// maxTypeLen bounds the TYPE in <<<OPTR:TYPE:…>>>.
const maxTypeLen = 32

// phase is where a frame's reader is.
type phase int

const (
	phaseType    phase = iota // reading TYPE up to ':'
	phasePayload              // before the first byte of a READY, ERROR or RESULT payload
	phaseJSON                 // a payload that starts with '{'
	phaseHandoff              // a HANDOFF stage, on one line
	phaseOther                // any other payload: anything up to >>>
)

// frameState is an open frame.
type frameState struct {
	buf     []byte // the frame so far, start included
	spliced bool   // its start was joined across a removed frame
	// lineStart is set when the frame begins a line of the output: if it
	// also ends the line, the line end goes with it.
	lineStart bool
	phase     phase
	gt        int // '>' seen in phaseType
	// JSON string tracking, so that >>> inside a string does not end the frame.
	inString, escaped bool
	// broken is set by a control character inside a JSON string: the
	// payload cannot parse, so the first >>> ends the frame.
	broken bool
}

func (p *Parser) startFrame(start []byte, spliced bool) {
	p.inFrame = true
	p.tailLen, p.tailOut = 0, 0
	p.frame = frameState{buf: append(p.frame.buf[:0], start...), spliced: spliced, lineStart: p.atLineStart}
}

// frameByte advances the open frame by one byte.
func (p *Parser) frameByte(c byte) {
	f := &p.frame
	if f.phase == phasePayload && c != ' ' && c != '\t' {
		// JSON if it looks like JSON; the seed also wrote plain text here.
		f.phase = phaseOther
		if c == '{' {
			f.phase = phaseJSON
		}
	}
	switch f.phase {
	case phaseType:
		if !p.typeByte(c) {
			return
		}
	case phaseJSON:
		f.buf = append(f.buf, c)
		switch {
		case f.broken:
			if closes(f.buf) {
				p.finishFrame()
				return
			}
		case f.escaped:
			f.escaped = false
		case f.inString:
			switch {
			case c == '\\':
				f.escaped = true
			case c == '"':
				f.inString = false
			case c < 0x20:
				f.broken = true
			}
		case c == '"':
			f.inString = true
		case closes(f.buf):
			p.finishFrame()
			return
		}
	case phaseHandoff:
		if c == '\n' {
			p.dropFrame("the HANDOFF frame is not closed with >>> on its line")
			p.textByte(c)
			return
		}
		f.buf = append(f.buf, c)
		if closes(f.buf) {
			p.finishFrame()
			return
		}
	case phasePayload, phaseOther:
		f.buf = append(f.buf, c)
		if closes(f.buf) {
			p.finishFrame()
			return
		}
	}
	if c == ':' && len(f.buf) >= 2*startLen && isStart(f.buf[len(f.buf)-startLen:]) {
		// A frame starts inside this one: this one was never closed.
		var next [startLen]byte
		copy(next[:], f.buf[len(f.buf)-startLen:])
		f.buf = f.buf[:len(f.buf)-startLen]
		p.dropFrame("the frame is not closed with >>> before the next frame starts")
		p.startFrame(next[:], false)
		return
	}
	if len(f.buf) >= p.maxFrame {
		p.dropFrame(fmt.Sprintf("no closing >>> within %d bytes", p.maxFrame))
	}
}

// typeByte reads one byte of the frame's TYPE. It reports whether the frame
// is still open and unfinished.
func (p *Parser) typeByte(c byte) bool {
	f := &p.frame
	typeLen := len(f.buf) - startLen - f.gt
	switch {
	case c == '>':
		f.gt++
		f.buf = append(f.buf, c)
		if f.gt == len(">>>") {
			p.finishFrame()
			return false
		}
		return true
	case f.gt == 0 && (c >= 'A' && c <= 'Z' || c == '_') && typeLen < maxTypeLen:
		f.buf = append(f.buf, c)
		return true
	case f.gt == 0 && c == ':' && typeLen > 0:
		f.buf = append(f.buf, c)
		switch Type(f.buf[startLen : len(f.buf)-1]) {
		case Ready, Error, Result:
			f.phase = phasePayload
		case Handoff:
			f.phase = phaseHandoff
		default:
			f.phase = phaseOther
		}
		return true
	}
	// Not a frame type: drop what was read and take c as text again.
	p.dropFrame("a frame type is upper-case letters and '_' followed by ':', as in <<<OPTR:READY:{…}>>>")
	p.textByte(c)
	return false
}

// closes reports whether the frame buffer ends with >>>.
func closes(buf []byte) bool {
	return bytes.HasSuffix(buf, []byte(">>>"))
}

// dropFrame reports the open frame as malformed and returns to text.
func (p *Parser) dropFrame(reason string) {
	p.malformed(reason, p.frame.buf)
	p.resumeText()
}

// finishFrame parses a closed frame and reports it.
func (p *Parser) finishFrame() {
	f := &p.frame
	p.resumeText()
	p.eatNewline = f.lineStart
	if f.spliced {
		p.malformed("the frame start is split by another frame", f.buf)
		return
	}
	e, err := parseFrame(f.buf)
	if err != nil {
		p.malformed(err.Error(), f.buf)
		return
	}
	p.event(e)
}
