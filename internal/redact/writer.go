package redact

import (
	"io"
	"unsafe"

	"github.com/optr-dev/optr/internal/secretscan"
)

// streamAfter is how much a Writer buffers before it starts to stream.
// Until then it redacts with String at Close, so a short text is redacted
// exactly as String does it.
const streamAfter = 64 << 10

// block is how much a streaming Writer gathers past what it holds back
// before it redacts again: each pass rescans the bytes held back and the
// context, so a larger block costs fewer rescans.
const block = 256 << 10

// Writer redacts a stream on its way to another writer: what reaches it,
// once Close returns, is String of everything written, however the stream
// was cut into writes — a secret split across two writes is replaced
// whole. It holds back what a later byte could still change: the longest
// secret, and a token's reach (secretscan.Reach) either side of a keyword;
// a pass also reads as much of what it already passed on, so that a
// token's prefix there counts. (A token-shaped match longer than that,
// which no rule has, could come out differently than from String.)
// Nothing is written to the underlying writer until the stream is longer
// than 64 KiB or closed.
type Writer struct {
	r *Redactor
	w io.Writer
	// buf holds, from seen on, the bytes written but not yet redacted;
	// before seen, the last bytes passed on, unredacted: a token's prefix
	// or a word boundary there is context for the tokens after it.
	buf     []byte
	seen    int
	hold    int // bytes held back from each pass
	started bool
	err     error
}

// NewWriter returns a Writer that passes what is written to it, redacted by
// r, on to w. A nil r redacts nothing. Close must be called at the end of
// the stream.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{r: r, w: w} }

// Write redacts p on its way; it reports the first error of the
// underlying writer.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if !w.r.Active() {
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if !w.started {
		if len(w.buf) <= streamAfter {
			return len(p), nil
		}
		w.started = true
	}
	// What is held back: the longest needle (values the Redactor learns
	// meanwhile make it longer), and a token's reach either side.
	if st := w.r.state(); st.frags != nil {
		w.hold = max(w.hold, st.frags.longest)
	}
	if w.r.tokens {
		w.hold = max(w.hold, 2*secretscan.Reach()+64)
	}
	w.hold = max(w.hold, 1)
	if len(w.buf)-w.seen >= w.hold+block {
		w.pass(false)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close redacts and passes on what is held back. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.err != nil || !w.r.Active() {
		return w.err
	}
	if !w.started {
		w.emit([]byte(w.r.String(string(w.buf))))
		w.buf = nil
		return w.err
	}
	w.pass(true)
	return w.err
}

// pass redacts what is buffered and passes it on: all of it when final,
// else up to what the held-back bytes can no longer change (a secret that
// starts before that point is passed on whole, replaced).
func (w *Writer) pass(final bool) {
	// The spans are found in the buffer itself, not in a copy: nothing
	// changes it until they are written out.
	text := unsafe.String(unsafe.SliceData(w.buf), len(w.buf))
	limit := len(text)
	if !final {
		limit -= w.hold
	}
	pos := w.seen
	for _, sp := range w.r.spans(w.r.state(), text, w.seen) {
		if sp.start >= limit {
			break
		}
		w.emit(w.buf[pos:sp.start])
		w.emitString(sp.with)
		pos = sp.end
	}
	if pos < limit {
		w.emit(w.buf[pos:limit])
		pos = limit
	}
	// Keep the last bytes passed on as the next pass's context.
	from := max(0, pos-w.hold)
	w.buf = w.buf[:copy(w.buf, w.buf[from:])]
	w.seen = pos - from
}

func (w *Writer) emitString(s string) {
	if w.err == nil && len(s) > 0 {
		_, w.err = io.WriteString(w.w, s)
	}
}

func (w *Writer) emit(b []byte) {
	if w.err == nil && len(b) > 0 {
		_, w.err = w.w.Write(b)
	}
}
