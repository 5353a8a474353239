package command

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/spool"
)

// tailBuffer keeps the last max bytes written to it, in at most 2*max bytes
// of memory, and counts what it dropped.
type tailBuffer struct {
	max    int
	redact *redact.Redactor
	buf    []byte
	cut    int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		t.cut += int64(len(t.buf) + len(p) - t.max)
		t.buf, p = t.buf[:0], p[len(p)-t.max:]
	}
	if len(t.buf)+len(p) > 2*t.max {
		drop := len(t.buf) - (t.max - len(p))
		t.cut += int64(drop)
		t.buf = append(t.buf[:0], t.buf[drop:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept tail, redacted before it is cut to max bytes
// (a secret split by an earlier drop leaves its tail at the start, and that
// tail is redacted as the secret); when something was cut, a first line
// says so.
func (t *tailBuffer) String() string {
	b, cut := []byte(t.redact.String(string(t.buf))), t.cut
	if len(b) > t.max {
		cut += int64(len(b) - t.max)
		b = b[len(b)-t.max:]
	}
	if cut == 0 {
		return string(b)
	}
	kept := b[spool.Start(b):]
	b, cut = kept, cut+int64(len(b)-len(kept))
	return fmt.Sprintf("[optr: the first %d bytes of stderr were cut, the last %d are kept]\n", cut, len(b)) + string(b)
}

// firstOutput passes the answer on to w and remembers when its first byte
// came, after start.
type firstOutput struct {
	w     io.Writer
	start time.Time
	at    atomic.Int64 // nanoseconds after start, 0 until the first byte
}

func (f *firstOutput) Write(b []byte) (int, error) {
	if len(b) > 0 && f.at.Load() == 0 {
		f.at.CompareAndSwap(0, max(1, int64(time.Since(f.start))))
	}
	return f.w.Write(b)
}

// after is when the first byte came after start, 0 when none did.
func (f *firstOutput) after() time.Duration { return time.Duration(f.at.Load()) }

// progressWriter reports every chunk written through it as a sign of life.
type progressWriter struct {
	w        io.Writer
	progress func(agent.Progress)
}

func (p progressWriter) Write(b []byte) (int, error) {
	if p.progress != nil && len(b) > 0 {
		p.progress(agent.Progress{Bytes: len(b)})
	}
	return p.w.Write(b)
}
