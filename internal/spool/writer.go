package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/redact"
)

// FilePrefix starts the name of every file a Writer keeps an output in, so
// that what lists a directory (the datalake) tells spooled outputs, which
// are never recorded, from the files a run records.
const FilePrefix = ".spool-"

// Options configure a Writer.
type Options struct {
	// Dir is where an output larger than InMemory is kept, in a file named
	// FilePrefix + Prefix + "*" + Suffix (os.CreateTemp). Empty keeps every
	// output in memory.
	Dir, Prefix, Suffix string
	// Max bounds the bytes accepted, counted before redaction; the rest is
	// dropped, Over reports it, and OnOver is called once. Zero or less
	// means no bound.
	Max int64
	// InMemory is the largest output, after redaction, kept in memory.
	InMemory int
	// Redactor replaces secrets on the way (nil: none).
	Redactor *redact.Redactor
	// OnOver is called the first time Max is passed (may be nil).
	OnOver func()
}

// Writer takes an output as it is produced. Write never fails, so that
// whatever feeds it (a control-frame parser, a pipe) keeps reading; a
// failure to write the file is reported by Close.
type Writer struct {
	opts  Options
	taken int64  // bytes accepted, before redaction
	hold  []byte // the last bytes accepted: a character the cut splits is dropped whole
	over  bool
	red   *redact.Writer
	sink  sink
}

// New returns a Writer.
func New(opts Options) *Writer {
	w := &Writer{opts: opts}
	w.sink = sink{opts: &w.opts, hash: sha256.New(), valid: true}
	w.red = redact.NewWriter(&w.sink, opts.Redactor)
	return w
}

// Write takes p. It always reports len(p) written.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if w.opts.Max > 0 {
		if room := w.opts.Max - w.taken; int64(len(p)) > room {
			p = p[:room]
			if !w.over {
				w.over = true
				if w.opts.OnOver != nil {
					w.opts.OnOver()
				}
			}
		}
	}
	w.taken += int64(len(p))
	w.hold = append(w.hold, p...)
	if keep := utf8.UTFMax - 1; len(w.hold) > keep {
		_, _ = w.red.Write(w.hold[:len(w.hold)-keep]) // a failure is kept for Close
		w.hold = append(w.hold[:0], w.hold[len(w.hold)-keep:]...)
	}
	return n, nil
}

// Over reports whether more than Max bytes were offered.
func (w *Writer) Over() bool { return w.over }

// Output is what a Writer kept: the text, when it fitted in memory, or the
// File holding it.
type Output struct {
	Text string
	File *File
}

// Close ends the output and returns it. When Max was passed, a character
// split by the cut is dropped. On error the file, if any, is removed.
func (w *Writer) Close() (Output, error) {
	tail := w.hold
	if w.over {
		tail = tail[:Whole(tail)]
	}
	_, _ = w.red.Write(tail)
	w.hold = nil
	err := w.red.Close()
	return w.sink.close(err)
}

// Whole returns len(b), or where an incomplete character at its end
// starts. A character start always begins a character of its own when a
// text is decoded, so b[:Whole(b)] decodes (and escapes, counts,
// validates) as it does within the whole text.
func Whole(b []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return len(b) - i
			}
			break
		}
	}
	return len(b)
}

// Start returns 0, or where the first character that starts in b begins
// when b starts inside one: the continuation bytes (at most
// utf8.UTFMax-1) of a character cut at its start are skipped.
func Start(b []byte) int {
	i := 0
	for i < utf8.UTFMax-1 && i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return i
}

// sink takes the redacted bytes: it keeps them in memory up to InMemory,
// then in a file, hashing and counting them.
type sink struct {
	opts *Options
	// mem holds the output while it is in memory. Its storage at least
	// doubles when full (append grows a large slice by a quarter, copying a
	// 50 MiB output about twenty times over), and String hands the bytes
	// over without a copy.
	mem   strings.Builder
	file  *os.File
	size  int64
	hash  hash.Hash
	runes int64
	valid bool
	pend  []byte // the start of a character split across writes
	head  []byte // the excerpt, once the output went to a file
	err   error
}

func (s *sink) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.hash.Write(p)
	s.size += int64(len(p))
	s.count(p)
	if s.file == nil && (s.opts.Dir == "" || s.mem.Len()+len(p) <= s.opts.InMemory) {
		s.mem.Grow(len(p)) // when full, to twice its capacity and len(p)
		s.mem.Write(p)
		return len(p), nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.opts.Dir, FilePrefix+s.opts.Prefix+"*"+s.opts.Suffix)
		if err != nil {
			s.err = fmt.Errorf("keep the output on disk: %w", err)
			return 0, s.err
		}
		s.file = f
		mem := s.mem.String()
		s.head = []byte(mem[:min(len(mem), ExcerptMax+utf8.UTFMax)])
		if _, err := io.WriteString(f, mem); err != nil {
			s.err = fmt.Errorf("keep the output on disk: %w", err)
			return 0, s.err
		}
		s.mem = strings.Builder{}
	}
	if len(s.head) < ExcerptMax+utf8.UTFMax {
		s.head = append(s.head, p[:min(len(p), ExcerptMax+utf8.UTFMax-len(s.head))]...)
	}
	if _, err := s.file.Write(p); err != nil {
		s.err = fmt.Errorf("keep the output on disk: %w", err)
		return 0, s.err
	}
	return len(p), nil
}

// count adds p's characters and checks that they are UTF-8.
func (s *sink) count(p []byte) {
	// First the character split across writes, with at most the bytes of
	// p that can finish it; what follows it is counted in place.
	for len(s.pend) > 0 && len(p) > 0 {
		held := len(s.pend)
		s.pend = append(s.pend, p[:min(len(p), utf8.UTFMax-held)]...)
		if !utf8.FullRune(s.pend) {
			return // all of p, and still not a whole character
		}
		r, n := utf8.DecodeRune(s.pend)
		if r == utf8.RuneError && n == 1 {
			s.valid = false
		}
		s.runes++
		if n >= held {
			p, s.pend = p[n-held:], s.pend[:0]
		} else { // an invalid start: the bytes held after it come next
			s.pend = append(s.pend[:0], s.pend[n:held]...)
		}
	}
	if len(p) == 0 {
		return
	}
	cut := Whole(p)
	body := p[:cut]
	s.runes += int64(utf8.RuneCount(body))
	if s.valid && !utf8.Valid(body) {
		s.valid = false
	}
	s.pend = append(s.pend[:0], p[cut:]...)
}

func (s *sink) close(err error) (Output, error) {
	for len(s.pend) > 0 { // an incomplete character at the end: each byte counts
		s.valid = false
		_, n := utf8.DecodeRune(s.pend)
		s.runes++
		s.pend = s.pend[n:]
	}
	if err == nil {
		err = s.err
	}
	if s.file == nil {
		if err != nil {
			return Output{}, err
		}
		return Output{Text: s.mem.String()}, nil
	}
	if cerr := s.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("keep the output on disk: %w", cerr)
	}
	abs, aerr := filepath.Abs(s.file.Name())
	if err == nil {
		err = aerr
	}
	if err != nil {
		_ = os.Remove(s.file.Name())
		return Output{}, err
	}
	return Output{File: &File{
		Path: abs, Size: s.size, SHA256: hex.EncodeToString(s.hash.Sum(nil)),
		Runes: s.runes, ValidUTF8: s.valid, Excerpt: Head(string(s.head), ExcerptMax),
	}}, nil
}
