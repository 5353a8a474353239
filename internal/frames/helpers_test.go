package frames

import (
	"bytes"
	"fmt"
	"testing"
)

// result is everything a Parser reported for one stream.
type result struct {
	Out       string
	Events    []Event
	Malformed []string // excerpts of what was dropped or ignored
}

// parse feeds chunks to a new Parser built with opts and closes it.
func parse(t testing.TB, opts Options, chunks ...[]byte) result {
	t.Helper()
	var (
		out bytes.Buffer
		res result
	)
	opts.OnEvent = func(e Event) { res.Events = append(res.Events, e) }
	opts.OnMalformed = func(m Malformed) { res.Malformed = append(res.Malformed, m.Excerpt) }
	p := New(&out, opts)
	for _, c := range chunks {
		if n, err := p.Write(c); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", c, n, err, len(c))
		}
		checkBounds(t, p)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	res.Out = out.String()
	return res
}

// checkBounds fails the test when the parser holds more than its limits allow.
func checkBounds(t testing.TB, p *Parser) {
	t.Helper()
	if n := len(p.frame.buf); n > p.maxFrame {
		t.Fatalf("frame buffer holds %d bytes, limit %d", n, p.maxFrame)
	}
	if n := len(p.lines.buf); n > p.lines.max {
		t.Fatalf("line buffer holds %d bytes, limit %d", n, p.lines.max)
	}
	if n := len(p.obuf); n != 0 {
		t.Fatalf("output buffer holds %d bytes after Write returned", n)
	}
}

// feed is one way of cutting a stream into writes.
type feed struct {
	name   string
	chunks [][]byte
}

// feeds returns the stream in one write, byte by byte, and in every 2-way split.
func feeds(in string) []feed {
	b := []byte(in)
	fs := []feed{{name: "one write", chunks: [][]byte{b}}}
	bytewise := make([][]byte, len(b))
	for i := range b {
		bytewise[i] = b[i : i+1]
	}
	fs = append(fs, feed{name: "byte by byte", chunks: bytewise})
	for i := 1; i < len(b); i++ {
		fs = append(fs, feed{name: fmt.Sprintf("split at %d", i), chunks: [][]byte{b[:i], b[i:]}})
	}
	return fs
}
