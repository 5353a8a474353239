package frames

import (
	"bytes"
	"errors"
	"io"
)

// Default limits.
const (
	// DefaultMaxFrame bounds a frame, from <<< to >>> inclusive.
	DefaultMaxFrame = 64 << 10
	// DefaultMaxLine bounds a line signal.
	DefaultMaxLine = 64 << 10
)

// minLimit is the smallest MaxFrame or MaxLine New accepts; smaller values are raised to it.
const minLimit = 32

// flushAt is the size at which buffered clean output is written out.
const flushAt = 32 << 10

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("frames: write after close")

// Options configures a Parser. The zero value is usable.
type Options struct {
	// OnEvent receives every frame and line signal, in stream order. The
	// clean output that precedes an event has been written before OnEvent is
	// called. Nil discards events.
	OnEvent func(Event)
	// OnMalformed receives every malformed frame or line signal, for a log.
	// Nil discards them.
	OnMalformed func(Malformed)
	// MaxFrame bounds a frame in bytes (default DefaultMaxFrame).
	MaxFrame int
	// MaxLine bounds a line signal in bytes (default DefaultMaxLine); a
	// longer signal line is reported as malformed (it stays in the output).
	MaxLine int
}

// Parser removes control frames from a stream and reports them and the
// stream's line signals. It is an io.Writer; call Close at the end of the
// stream. A Parser is not safe for concurrent use.
type Parser struct {
	out         io.Writer
	onEvent     func(Event)
	onMalformed func(Malformed)
	maxFrame    int

	// tail is the longest suffix of the clean stream that is a proper
	// prefix of a frame start (<<<OPTR: or <<<ODEI:). Its first tailOut
	// bytes have been written already (they came before a removed frame);
	// the rest are held back until it is clear they are not a frame.
	tail    [startLen]byte
	tailLen int
	tailOut int
	// outTail is the longest suffix of the written output that is a proper
	// prefix of a frame start. It becomes the tail after a frame is removed,
	// so that removal cannot join the two sides into a new frame start.
	outTail    [startLen]byte
	outTailLen int
	cand       [startLen]byte // scratch for textByte

	inFrame bool
	frame   frameState
	// atLineStart is true while the written output is empty or ends with
	// a line end; eatNewline drops the next byte if it is '\n', so that a
	// frame alone on its line leaves no empty line behind.
	atLineStart bool
	eatNewline  bool

	lines lineScanner
	obuf  []byte
	err   error
	done  bool
}

// New returns a Parser that writes the clean output to out.
func New(out io.Writer, opts Options) *Parser {
	p := &Parser{
		out:         out,
		onEvent:     opts.OnEvent,
		onMalformed: opts.OnMalformed,
		maxFrame:    limit(opts.MaxFrame, DefaultMaxFrame),
		atLineStart: true,
	}
	p.lines.max = limit(opts.MaxLine, DefaultMaxLine)
	return p
}

func limit(v, def int) int {
	if v <= 0 {
		return def
	}
	return max(v, minLimit)
}

// Write feeds the next bytes of the stream. It always consumes all of b;
// the error is the first error writing the clean output, which is sticky.
func (p *Parser) Write(b []byte) (int, error) {
	if p.done {
		return 0, ErrClosed
	}
	n := len(b)
	for len(b) > 0 {
		if p.eatNewline {
			p.eatNewline = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		if !p.inFrame && p.tailLen == 0 {
			// Fast path: nothing pending, copy up to the next '<'.
			i := bytes.IndexByte(b, '<')
			if i < 0 {
				p.emit(b)
				break
			}
			p.emit(b[:i])
			b = b[i:]
		}
		if p.inFrame {
			p.frameByte(b[0])
		} else {
			p.textByte(b[0])
		}
		b = b[1:]
	}
	p.flush()
	return n, p.err
}

// Close ends the stream: a frame still open is reported as malformed and
// dropped, held-back text is written, and the last line is checked for a
// signal even without a line end. Close returns the first error writing the
// clean output. Closing twice is a no-op.
func (p *Parser) Close() error {
	if p.done {
		return p.err
	}
	p.done = true
	if p.inFrame {
		p.dropFrame("the output ended inside the frame (no closing >>>)")
	}
	if p.tailLen > p.tailOut {
		p.emit(p.tail[p.tailOut:p.tailLen])
	}
	p.tailLen, p.tailOut = 0, 0
	p.endLine()
	p.flush()
	return p.err
}

// emit passes clean output on and watches it for line signals.
func (p *Parser) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	p.trackOutTail(b)
	p.atLineStart = b[len(b)-1] == '\n'
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			p.lines.add(b)
			p.write(b)
			return
		}
		p.lines.add(b[:nl])
		p.write(b[:nl+1])
		p.endLine()
		b = b[nl+1:]
	}
}

// write buffers clean output, writing large pieces straight through.
func (p *Parser) write(b []byte) {
	if len(p.obuf)+len(b) > flushAt {
		p.flush()
		if len(b) >= flushAt {
			p.send(b)
			return
		}
	}
	p.obuf = append(p.obuf, b...)
}

func (p *Parser) flush() {
	if len(p.obuf) > 0 {
		p.send(p.obuf)
		p.obuf = p.obuf[:0]
	}
}

func (p *Parser) send(b []byte) {
	if p.err != nil {
		return
	}
	if _, err := p.out.Write(b); err != nil {
		p.err = err
	}
}

func (p *Parser) event(e Event) {
	p.flush()
	if p.onEvent != nil {
		p.onEvent(e)
	}
}

func (p *Parser) malformed(reason string, text []byte) {
	if p.onMalformed != nil {
		p.onMalformed(Malformed{Reason: reason, Excerpt: excerpt(text)})
	}
}
