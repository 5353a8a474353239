// Package extract finds a JSON object in text written by a language model:
// bare, inside a ``` code fence, or with prose around it. Models are asked for
// JSON and usually comply, but not always to the letter; this is the one
// tolerant reader every LLM-facing part of optr uses.
package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoObject is returned when text holds no JSON object that decodes.
var ErrNoObject = errors.New("no JSON object found in the text")

// Object decodes the first JSON object in text into v. It tries, in order:
// the whole text, the contents of each fenced code block, and every
// balanced {...} span from left to right. The first candidate that decodes
// into v without error wins.
func Object(text string, v any) error {
	for _, c := range candidates(text) {
		if err := decodeInto(c, v); err == nil {
			return nil
		}
	}
	return ErrNoObject
}

func decodeInto(s string, v any) error {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return ErrNoObject
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return err
	}
	// Only whitespace may follow the object.
	if _, err := dec.Token(); err == nil {
		return ErrNoObject
	}
	return nil
}

func candidates(text string) []string {
	out := []string{text}
	out = append(out, fences(text)...)
	out = append(out, balanced(text)...)
	return out
}

// fences returns the bodies of ``` blocks (an info string such as json is dropped).
func fences(text string) []string {
	var out []string
	rest := text
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			return out
		}
		rest = rest[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.Contains(rest[:nl], "{") {
			rest = rest[nl+1:]
		}
		j := strings.Index(rest, "```")
		if j < 0 {
			return append(out, rest)
		}
		out = append(out, rest[:j])
		rest = rest[j+3:]
	}
}

// balanced returns every {...} span whose braces balance, honouring JSON
// strings so braces inside strings do not count.
func balanced(text string) []string {
	var out []string
	b := []byte(text)
	for start := bytes.IndexByte(b, '{'); start >= 0; {
		if end := matchBrace(b, start); end > 0 {
			out = append(out, string(b[start:end]))
		}
		next := bytes.IndexByte(b[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return out
}

func matchBrace(b []byte, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
