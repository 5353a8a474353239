package config

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/markdown"
)

// Bounds checked before the YAML parser sees a file. goccy/go-yaml's
// parser is not linear in nesting: 200 KB of nested "[" took 165 s and
// 15 GB, and SIGTERM waited for it. A config is a few KB, a few levels
// deep; these bounds are far above any real one and keep the parse in
// milliseconds.
const (
	// MaxFileSize bounds a config file.
	MaxFileSize = 256 << 10
	// MaxDepth bounds how deeply collections nest (block indentation
	// levels, compact "- - " items and flow "[" "{" together).
	MaxDepth = 64
)

// checkShape refuses, in one linear pass, a file too large or nested too
// deeply to hand to the parser, naming the line where the limit was
// passed. It errs on the side of counting: brackets in comments and quoted
// strings are skipped, block scalars (| and >) are skipped, and anything
// else that looks like nesting counts.
func checkShape(data []byte) (place, error) {
	if len(data) > MaxFileSize {
		return place{}, fmt.Errorf("the file is %d bytes; a config may hold at most %d", len(data), MaxFileSize)
	}
	if at, err := checkText(data); err != nil {
		return at, err
	}
	var (
		indents   []int // block indentation levels open at this line
		flow      int   // flow collections open
		blockFrom = -1  // inside a block scalar: lines indented more than this belong to it
	)
	for lineNo, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		body := bytes.TrimLeft(line, " \t")
		indent := len(line) - len(body)
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		if blockFrom >= 0 {
			if indent > blockFrom {
				continue
			}
			blockFrom = -1
		}
		if flow == 0 {
			for len(indents) > 0 && indents[len(indents)-1] > indent {
				indents = indents[:len(indents)-1]
			}
			if len(indents) == 0 || indents[len(indents)-1] < indent {
				indents = append(indents, indent)
			}
		}
		compact := 0
		for len(body) >= 2 && (body[0] == '-' || body[0] == '?') && (body[1] == ' ' || body[1] == '\t') {
			compact++
			body = bytes.TrimLeft(body[2:], " \t")
		}
		var depthErr bool
		flow, depthErr = scanFlow(body, flow, len(indents)+compact)
		if depthErr || len(indents)+compact+flow > MaxDepth {
			return place{line: lineNo + 1, column: 1}, fmt.Errorf("collections are nested more than %d deep here; a config needs a few levels", MaxDepth)
		}
		if flow == 0 && endsBlockScalar(body) {
			blockFrom = indent
		}
	}
	return place{}, nil
}

// scanFlow follows "[", "{", "]" and "}" outside quotes and comments
// through one line, starting with open flow collections, and reports
// whether block+open ever passed MaxDepth.
func scanFlow(b []byte, open, block int) (int, bool) {
	prev := byte(' ')
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '#' && (prev == ' ' || prev == '\t'):
			return open, false
		case (c == '"' || c == '\'') && isTokenStart(prev):
			i = skipQuoted(b, i)
		case c == '[' || c == '{':
			open++
			if block+open > MaxDepth {
				return open, true
			}
		case (c == ']' || c == '}') && open > 0:
			open--
		}
		prev = c
	}
	return open, false
}

func isTokenStart(prev byte) bool {
	switch prev {
	case ' ', '\t', '[', '{', ',', ':', '-', '?':
		return true
	}
	return false
}

// skipQuoted returns the index of the quote closing the string opening at
// b[i], or the line's last index when it does not close on this line.
func skipQuoted(b []byte, i int) int {
	q := b[i]
	for j := i + 1; j < len(b); j++ {
		switch {
		case q == '"' && b[j] == '\\':
			j++
		case b[j] == q && q == '\'' && j+1 < len(b) && b[j+1] == '\'':
			j++
		case b[j] == q:
			return j
		}
	}
	return len(b) - 1
}

// endsBlockScalar reports whether a line ends with a block scalar header
// ("key: |", "- >-", "run: |2"), so the lines below are its text.
func endsBlockScalar(body []byte) bool {
	if i := bytes.Index(body, []byte(" #")); i >= 0 {
		body = body[:i]
	}
	body = bytes.TrimRight(body, " \t")
	j := len(body)
	for j > 0 && (body[j-1] == '+' || body[j-1] == '-' || body[j-1] >= '1' && body[j-1] <= '9') {
		j--
	}
	if j == 0 || (body[j-1] != '|' && body[j-1] != '>') {
		return false
	}
	return j == 1 || body[j-2] == ' ' || body[j-2] == '\t'
}

// checkText refuses a file that is not UTF-8 text, such as a binary given
// as a config by mistake, naming the line of the first byte that is not,
// with a short escaped excerpt around that byte: never the file itself.
func checkText(data []byte) (place, error) {
	bad := bytes.IndexByte(data, 0)
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				if bad < 0 || i < bad {
					bad = i
				}
				break
			}
			i += size
		}
	}
	if bad < 0 {
		return place{}, nil
	}
	line := bytes.Count(data[:bad], []byte("\n")) + 1
	start := bytes.LastIndexByte(data[:bad], '\n') + 1
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		end = len(data) - start
	}
	// The excerpt starts a few bytes before the one that is not text.
	from := max(start, bad-8)
	for from > start && !utf8.RuneStart(data[from]) {
		from--
	}
	excerpt := markdown.Quote(string(data[from:start+end]), 16)
	return place{line: line, column: bad - start + 1}, fmt.Errorf("the file is not text (%s): a config is YAML in UTF-8; is this the file you meant?", excerpt)
}
