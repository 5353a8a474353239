package executor

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/spool"
)

// ReadOutputs reads r's output and raw text back from its agent output
// file at path — the JSON EncodeJSON (or MarshalJSON) wrote — the reverse
// of EncodeJSON: each string is unescaped as it is read into a
// spool.Writer of opts (kept in memory up to opts.InMemory, else in a
// file in opts.Dir), so that an output of tens of MiB is never held whole.
// The output read must hash to r.OutputSHA256: a file that was changed is
// an error, and r is left as it was. The bytes are taken as written: they
// were redacted when the agent produced them (opts.Redactor is not used).
func (r *Result) ReadOutputs(path string, opts spool.Options) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read the output of %s back: %w", r.Agent, err)
	}
	defer f.Close()
	opts.Redactor, opts.Max, opts.OnOver = nil, 0, nil
	writers := map[string]*spool.Writer{}
	var b64 *base64Writer
	var outs []spool.Output
	defer func() {
		if err != nil { // nothing read back is kept
			for _, o := range outs {
				if o.File != nil {
					_ = o.File.Remove()
				}
			}
		}
	}()
	take := func(key string) io.Writer {
		switch key {
		case "output", "raw", "output_base64":
		default:
			return nil
		}
		w := spool.New(opts)
		writers[key] = w
		if key == "output_base64" {
			b64 = &base64Writer{w: w}
			return b64
		}
		return w
	}
	rerr := readMembers(bufio.NewReaderSize(f, 64<<10), take)
	if b64 != nil && rerr == nil && len(b64.carry) > 0 {
		rerr = errors.New("output_base64 ends in the middle of a group of four")
	}
	got := map[string]spool.Output{}
	for key, w := range writers {
		o, cerr := w.Close()
		rerr = errors.Join(rerr, cerr)
		outs = append(outs, o)
		got[key] = o
	}
	if rerr != nil {
		return fmt.Errorf("read the output of %s back from %s: %w", r.Agent, path, rerr)
	}
	out, ok := got["output"]
	if b64, has := got["output_base64"]; has {
		out, ok = b64, true // the bytes themselves: "output" holds U+FFFD for the invalid ones
	}
	if !ok {
		return fmt.Errorf("read the output of %s back from %s: the file has no output", r.Agent, path)
	}
	sum := SHA256Hex(out.Text)
	if out.File != nil {
		sum = out.File.SHA256
	}
	if sum != r.OutputSHA256 {
		return fmt.Errorf("read the output of %s back from %s: it hashes to %s, but the run recorded %s: the file was changed", r.Agent, path, sum, r.OutputSHA256)
	}
	if text, has := got["output"]; has && text.File != nil && text.File != out.File {
		_ = text.File.Remove() // output_base64 held the bytes
	}
	if out.File != nil {
		r.setSpool(out.File)
	} else {
		r.setOutput(out.Text)
	}
	r.Raw, r.RawFile = "", nil
	if raw, ok := got["raw"]; ok {
		r.Raw, r.RawFile = raw.Text, raw.File
	}
	return nil
}

// base64Writer decodes standard base64 written to it in pieces.
type base64Writer struct {
	w     io.Writer
	carry []byte
	err   error
}

func (b *base64Writer) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	b.carry = append(b.carry, p...)
	whole := len(b.carry) / 4 * 4
	if whole == 0 {
		return len(p), nil
	}
	buf := make([]byte, base64.StdEncoding.DecodedLen(whole))
	n, err := base64.StdEncoding.Decode(buf, b.carry[:whole])
	if err != nil {
		b.err = fmt.Errorf("output_base64: %w", err)
		return 0, b.err
	}
	if _, err := b.w.Write(buf[:n]); err != nil {
		b.err = err
		return 0, err
	}
	b.carry = append(b.carry[:0], b.carry[whole:]...)
	return len(p), nil
}

// readMembers reads one JSON object from br and, for each member whose
// value is a string and for whose key take returns a writer, writes the
// string's unescaped bytes there; every other value is read past.
func readMembers(br *bufio.Reader, take func(key string) io.Writer) error {
	if err := expect(br, '{'); err != nil {
		return err
	}
	c, err := next(br)
	if err != nil {
		return err
	}
	if c == '}' {
		return trailing(br)
	}
	for {
		if c != '"' {
			return fmt.Errorf("a member's key starts with %q, not a quote", c)
		}
		var key strings.Builder
		if err := unescape(br, &limited{w: &key, n: 256}); err != nil {
			return err
		}
		if err := expect(br, ':'); err != nil {
			return err
		}
		v, err := next(br)
		if err != nil {
			return err
		}
		var w io.Writer
		if v == '"' {
			w = take(key.String())
		}
		if w != nil {
			if err := unescape(br, w); err != nil {
				return fmt.Errorf("%s: %w", key.String(), err)
			}
		} else if err := skip(br, v); err != nil {
			return err
		}
		if c, err = next(br); err != nil {
			return err
		}
		switch c {
		case '}':
			return trailing(br)
		case ',':
			if c, err = next(br); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%q after a member, not a comma or a brace", c)
		}
	}
}

// next returns the next byte of br that is not JSON white space.
func next(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c, nil
	}
}

func expect(br *bufio.Reader, want byte) error {
	c, err := next(br)
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("%q where %q belongs", c, want)
	}
	return nil
}

// trailing checks that only white space follows the object.
func trailing(br *bufio.Reader) error {
	if c, err := next(br); err == nil {
		return fmt.Errorf("%q after the object", c)
	} else if !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	return nil
}

// skip reads past the value that starts with c.
func skip(br *bufio.Reader, c byte) error {
	switch c {
	case '"':
		return unescape(br, io.Discard)
	case '{', '[':
		depth := 1
		for depth > 0 {
			c, err := next(br)
			if err != nil {
				return err
			}
			switch c {
			case '"':
				if err := unescape(br, io.Discard); err != nil {
					return err
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
		return nil
	}
	for { // a number or a literal: up to what ends it
		c, err := br.ReadByte()
		if err != nil {
			return err
		}
		if strings.IndexByte(",}] \t\r\n", c) >= 0 {
			return br.UnreadByte()
		}
	}
}

// unescape reads a JSON string whose opening quote was read, up to and
// including its closing quote, and writes its bytes to w in pieces cut
// between characters: an escaped surrogate pair is one character, and a
// lone surrogate U+FFFD, as encoding/json decodes them.
func unescape(br *bufio.Reader, w io.Writer) error {
	buf := make([]byte, 0, 32<<10)
	flush := func(all bool) error {
		cut := len(buf)
		if !all {
			cut = spool.Whole(buf)
		}
		if cut == 0 {
			return nil
		}
		if _, err := w.Write(buf[:cut]); err != nil {
			return err
		}
		buf = append(buf[:0], buf[cut:]...)
		return nil
	}
	for {
		if len(buf) >= cap(buf)-utf8.UTFMax {
			if err := flush(false); err != nil {
				return err
			}
		}
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		switch {
		case c == '"':
			return flush(true)
		case c < 0x20:
			return fmt.Errorf("a control character (%#x) in a string", c)
		case c != '\\':
			buf = append(buf, c)
			continue
		}
		e, err := br.ReadByte()
		if err != nil {
			return io.ErrUnexpectedEOF
		}
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := hex4(br)
			if err != nil {
				return err
			}
			if utf16.IsSurrogate(r) {
				pair := utf8.RuneError
				if r < 0xDC00 { // a high surrogate: a low one may follow
					if low, ok := lowSurrogate(br); ok {
						pair = utf16.DecodeRune(r, low)
					}
				}
				r = pair
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return fmt.Errorf("an unknown escape \\%c in a string", e)
		}
	}
}

// lowSurrogate reads an escaped low surrogate, \uDC00–\uDFFF, when one
// comes next; otherwise it reads nothing.
func lowSurrogate(br *bufio.Reader) (rune, bool) {
	p, err := br.Peek(6)
	if err != nil || p[0] != '\\' || p[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range p[2:] {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | d
	}
	if r < 0xDC00 || r > 0xDFFF {
		return 0, false
	}
	_, _ = br.Discard(6)
	return r, true
}

func hex4(br *bufio.Reader) (rune, error) {
	var r rune
	for range 4 {
		c, err := br.ReadByte()
		if err != nil {
			return 0, io.ErrUnexpectedEOF
		}
		d, ok := hexDigit(c)
		if !ok {
			return 0, fmt.Errorf("%q in a \\u escape", c)
		}
		r = r<<4 | d
	}
	return r, nil
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// limited writes at most n bytes to w; past them it fails.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errors.New("a member's key is too long")
	}
	l.n -= len(p)
	return l.w.Write(p)
}
