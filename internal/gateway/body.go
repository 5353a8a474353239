package gateway

import (
	"io"
	"mime"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
)

// maxJSON bounds a whole (not streamed) answer the gateway reads for its
// usage: a bigger one is passed on whole but its use is unknown.
const maxJSON = 16 << 20

// meterer reads a response's usage as its bytes pass.
type meterer interface {
	write(p []byte)
	// done returns what the response told; call it once, at its end,
	// cut when the body did not end as HTTP ends a body.
	done(cut bool) reading
}

// newMeterer is the meterer of a successful answer of a with the given
// Content-Type: a server-sent event stream, Gemini's streamed JSON array,
// or one JSON object.
func newMeterer(a api, contentType string, stream bool) meterer {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "text/event-stream":
		m := &sseMeter{a: a}
		m.sc.event = func(data []byte) { m.r.event(a, data) }
		m.sc.skip = a.skip
		return m
	case stream: // streamGenerateContent without alt=sse
		m := &arrayMeter{a: a}
		m.sc.element = func(obj []byte) { m.r.event(a, obj) }
		return m
	}
	return &jsonMeter{a: a}
}

type jsonMeter struct {
	a    api
	buf  []byte
	over bool
}

func (m *jsonMeter) write(p []byte) {
	if m.over {
		return
	}
	if len(m.buf)+len(p) > maxJSON {
		m.buf, m.over = nil, true
		return
	}
	m.buf = append(m.buf, p...)
}

func (m *jsonMeter) done(cut bool) reading {
	if m.over || cut {
		// Too big to read (its use is unknown), or cut: no JSON.
		return reading{complete: !cut}
	}
	return readBody(m.a, m.buf)
}

type sseMeter struct {
	a  api
	sc sseScanner
	r  reading
}

func (m *sseMeter) write(p []byte)    { m.sc.write(p) }
func (m *sseMeter) done(bool) reading { m.sc.end(); m.r.end(m.a); return m.r }

type arrayMeter struct {
	a  api
	sc arrayScanner
	r  reading
}

func (m *arrayMeter) write(p []byte) { m.sc.write(p) }

func (m *arrayMeter) done(bool) reading {
	m.r.end(m.a)
	// The array's closing bracket is its end; elements that tell a
	// finishReason say so too.
	if m.sc.depth == 0 && m.r.reported {
		m.r.complete = true
	}
	return m.r
}

// meteredBody is an upstream answer's body on its way to the agent: every
// byte read is shown to its meterer and counted as a sign of the agent's
// life, and the call is recorded once, at its end — the body read to its
// end (complete), or cut (an error, or closed before its end: the agent
// hung up, the provider's stream broke).
type meteredBody struct {
	rc  io.ReadCloser
	m   meterer // nil when the answer is not metered
	c   *callState
	end sync.Once
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		if b.m != nil {
			b.m.write(p[:n])
		}
		b.c.tab.alive(n)
	}
	switch {
	case err == io.EOF:
		b.finish(false)
	case err != nil:
		b.finish(true)
	}
	return n, err
}

// Close ends the call: cut short unless Read saw its end.
func (b *meteredBody) Close() error {
	err := b.rc.Close()
	b.finish(true)
	return err
}

func (b *meteredBody) finish(cut bool) {
	b.end.Do(func() {
		if b.m == nil {
			b.c.finish(reading{}, cut)
			return
		}
		r := b.m.done(cut)
		b.c.finish(r, !r.complete)
	})
}

// MeterAnswer meters an answer read from r as the gateway meters one
// passing through: the answer to a model call of method and path (a
// provider's API path, such as /v1/messages), with the Content-Type the
// provider gave it, each Read of r one piece as it came off the wire. It
// returns the use the answer reported (agent.UnknownUsage when it reported
// none), the model it names and whether it came to its end. For answers
// kept elsewhere (a recorded stream), and for measuring what metering
// costs (optr-bench's G1).
func MeterAnswer(method, path, contentType string, r io.Reader) (u agent.Usage, model string, complete bool, err error) {
	a, _, stream := apiOf(method, path)
	if !a.call() {
		return agent.Usage{}, "", true, nil
	}
	m := newMeterer(a, contentType, stream)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(buf)
		m.write(buf[:n])
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	rd := m.done(err != nil)
	if !rd.reported {
		rd.usage = agent.UnknownUsage
	}
	return rd.usage, rd.model, rd.complete, err
}
