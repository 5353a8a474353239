package redact

import (
	"bytes"
	"io"
)

// streamAfter is how much a Writer buffers before it starts to stream.
// Until then it redacts with String at Close, so a short text is redacted
// exactly as String does it; past it, the head and the tail of the stream
// are far apart and their cut-edge rules (see String) cannot meet.
const streamAfter = 64 << 10

// Writer redacts a stream on its way to another writer: what reaches it,
// once Close returns, is byte for byte String of everything written,
// however the stream was cut into writes — a secret split across two
// writes is replaced whole, and a fragment of a secret at the very start or
// end of the stream is replaced as String replaces it. It holds back at most
// 64 KiB plus twice the longest secret; nothing is written to the
// underlying writer until the stream is longer than 64 KiB or closed.
type Writer struct {
	r       *Redactor
	w       io.Writer
	in      []byte // bytes written but not yet redacted
	out     []byte // redacted bytes held back for the end's cut edge
	started bool   // streaming: the head was redacted and may be passed on
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
	if w.r == nil || w.r.rep == nil {
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.in = append(w.in, p...)
	if !w.started && len(w.in) <= streamAfter {
		return len(p), nil
	}
	w.replace(false)
	if !w.started {
		w.out = []byte(w.r.head(string(w.out)))
		w.started = true
	}
	// Hold back what the end's cut edge may still replace.
	if keep := w.r.longest() - 1; len(w.out) > keep {
		w.emit(w.out[:len(w.out)-keep])
		w.out = append(w.out[:0], w.out[len(w.out)-keep:]...)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close redacts and passes on what is held back. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.err != nil || w.r == nil || w.r.rep == nil {
		return w.err
	}
	if !w.started {
		w.emit([]byte(w.r.String(string(w.in))))
		w.in = nil
		return w.err
	}
	w.replace(true)
	w.emit([]byte(w.r.tail(string(w.out))))
	w.out = nil
	return w.err
}

func (w *Writer) emit(b []byte) {
	if w.err == nil && len(b) > 0 {
		_, w.err = w.w.Write(b)
	}
}

// replace moves the redacted part of in to out: up to the last secret
// that starts where no byte still to come can change the match (all of in
// when final).
func (w *Writer) replace(final bool) {
	limit := len(w.in)
	if !final {
		limit -= w.r.longest() - 1
	}
	pos := 0
	for pos < limit {
		at, n := w.r.next(w.in[pos:])
		if at < 0 || pos+at >= limit {
			break
		}
		w.out = append(w.out, w.in[pos:pos+at]...)
		w.out = append(w.out, Placeholder...)
		pos += at + n
	}
	if pos < limit {
		w.out = append(w.out, w.in[pos:limit]...)
		pos = limit
	}
	w.in = append(w.in[:0], w.in[pos:]...)
}

// next returns where the leftmost secret in s starts and its length (the
// longest one starting there, as the Replacer picks it), or -1.
func (r *Redactor) next(s []byte) (int, int) {
	at, n := -1, 0
	for _, v := range r.values { // longest first
		if i := bytes.Index(s, []byte(v)); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(v)
		}
	}
	return at, n
}

// longest is the length of the longest secret value.
func (r *Redactor) longest() int {
	if len(r.values) == 0 {
		return 1
	}
	return len(r.values[0])
}

// head applies the start's cut-edge rule of String to s.
func (r *Redactor) head(s string) string {
	for _, v := range r.values {
		s = cutHead(s, v)
	}
	return s
}

// tail applies the end's cut-edge rule of String to s.
func (r *Redactor) tail(s string) string {
	for _, v := range r.values {
		s = cutTail(s, v)
	}
	return s
}
