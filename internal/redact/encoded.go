package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// A known value is looked for as written and as an agent might encode it
// to carry it past a redactor: reversed, in hex (either case), and in
// base64 or base64url. A value inside a longer text that is then encoded
// lands at any of three offsets from a base64 group's start, so each of
// the three alignments has its own needle: the groups that hold the value's
// bytes only. A run of a needle is a secret when it stands for 8 bytes
// or more of the value: 8 characters of the value or of its reverse, 16
// hex digits, 11 base64 characters.

// needle is a text to find and the shortest run of it that counts.
type needle struct {
	s   string
	min int
}

// needles returns what to look for, for values.
func needles(values []string) []needle {
	var out []needle
	seen := map[string]int{}
	add := func(s string, least int) {
		least = max(minLen, min(least, len(s)))
		if len(s) < minLen {
			return
		}
		if i, ok := seen[s]; ok {
			out[i].min = min(out[i].min, least)
			return
		}
		seen[s] = len(out)
		out = append(out, needle{s, least})
	}
	for _, v := range values {
		p := secretPart(v)
		if len(p) < minLen {
			continue
		}
		add(p, minLen)
		add(reverse(p), minLen)
		h := hex.EncodeToString([]byte(p))
		add(h, 2*minLen)
		add(strings.ToUpper(h), 2*minLen)
		for j := range 3 {
			chunk := p[min(j, len(p)):]
			chunk = chunk[:len(chunk)/3*3]
			if len(chunk) < 6 {
				continue
			}
			add(base64.RawStdEncoding.EncodeToString([]byte(chunk)), 11)
			add(base64.RawURLEncoding.EncodeToString([]byte(chunk)), 11)
		}
	}
	return out
}

// reverse returns s with its bytes in the opposite order.
func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// junk are the bytes that cut a value into pieces in code and text
// without being part of it: white space and line breaks, quotes, and the
// punctuation that joins strings ("sk-a" + "nt-…", ["sk-a", "nt-…"]).
var junk = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\v\f\r\"'`+,;\\()[]{}") {
		t[c] = true
	}
	return t
}()

// squeeze appends s without its junk bytes to dst.
func squeeze(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !junk[s[i]] {
			dst = append(dst, s[i])
		}
	}
	return dst
}

// squeezed returns the needles squeezed as text is (HoldsAcross).
func squeezed(ns []needle) []needle {
	var out []needle
	seen := map[string]bool{}
	for _, n := range ns {
		s := string(squeeze(nil, n.s))
		if len(s) < minLen || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, needle{s, min(n.min, len(s))})
	}
	return out
}

// acrossChunk is how much squeezed text HoldsAcross gathers before it
// looks in it.
const acrossChunk = 1 << 20

// HoldsAcross reports whether pieces — the lines a code change adds, in
// order, across its files — hold a known value (or an encoding of one)
// once what cuts it is taken out: the line breaks between them, and the
// white space, quotes and joining punctuation around its pieces. So a key
// cut into pieces shorter than 8 bytes, one per line or per file, or
// spelt "sk-a" + "nt-…", is found. The pieces are read in order, in
// bounded memory.
func (r *Redactor) HoldsAcross(pieces []string) bool {
	st := r.state()
	if st.frags == nil {
		return false
	}
	st.acrossOnce.Do(func() { st.across = newFragments(squeezed(st.frags.needles)) })
	if st.across == nil || len(st.across.needles) == 0 {
		return false
	}
	keep := st.across.longest
	var buf []byte
	found := false
	look := func(final bool) {
		st.across.find(string(buf), func(int, int) { found = true })
		if !final && len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
	for _, p := range pieces {
		buf = squeeze(buf, p)
		if len(buf) >= acrossChunk+keep {
			if look(false); found {
				return true
			}
		}
	}
	look(true)
	return found
}
