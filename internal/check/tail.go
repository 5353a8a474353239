package check

import (
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/spool"
)

// tailBuffer is an io.Writer that keeps only the last max bytes written.
// os/exec and bytes.Buffer keep everything; a check's output can be large,
// and only its end goes into a Reason.
type tailBuffer struct {
	mu     sync.Mutex
	max    int
	redact *redact.Redactor
	buf    []byte
	total  int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept tail, starting at a character boundary and
// trimmed of surrounding whitespace; "…" marks a cut. The tail is redacted
// before anything is added: a secret split by the cut leaves its end at the
// start of the tail, and that end is redacted as the secret.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	cutFront := t.total > int64(len(b))
	if cutFront {
		b = b[spool.Start(b):]
	}
	s := strings.TrimSpace(strings.ToValidUTF8(t.redact.String(string(b)), "\uFFFD"))
	if cutFront && s != "" {
		s = "…" + s
	}
	return s
}

// suffix returns ": <tail>" for a Reason, or "" when nothing was written.
func (t *tailBuffer) suffix() string {
	if s := t.String(); s != "" {
		return ": " + s
	}
	return ""
}
