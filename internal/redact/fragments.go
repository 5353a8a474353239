package redact

import "strings"

// fragments finds, in a text, every run of a needle's min or more bytes
// that is also a run of the needle: the whole secret (or encoding of one),
// or what is left of it where a line break, a cut or an edit split it.
// Each window of minLen bytes is one uint64; a Bloom filter of the
// needles' windows, sized to stay sparse, answers for almost every
// position of an ordinary text with one bit test, and a map finds where
// in which needle a window occurs.
//
// Written here because the standard library's strings.Replacer (and every
// multi-pattern matcher) looks for whole needles: the needles here are the
// O(n²) substrings of each secret.
type fragments struct {
	needles []needle
	bloom   []uint64
	mask    uint64 // bits in bloom - 1
	at      map[uint64][]fragRef
	longest int
}

// fragRef is where a window occurs: in needles[needle], at off.
type fragRef struct{ needle, off int32 }

func newFragments(ns []needle) *fragments {
	f := &fragments{needles: ns, at: map[uint64][]fragRef{}}
	windows := 0
	for _, n := range ns {
		windows += max(0, len(n.s)-minLen+1)
	}
	bits := uint64(1 << 16)
	for bits < uint64(windows)*64 && bits < 1<<24 {
		bits <<= 1
	}
	f.bloom, f.mask = make([]uint64, bits/64), bits-1
	for i, n := range ns {
		f.longest = max(f.longest, len(n.s))
		for off := 0; off+minLen <= len(n.s); off++ {
			w := window(n.s, off)
			h := f.bloomBit(w)
			f.bloom[h>>6] |= 1 << (h & 63)
			f.at[w] = append(f.at[w], fragRef{int32(i), int32(off)})
		}
	}
	return f
}

// window is s[i:i+8] as a uint64.
func window(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func (f *fragments) bloomBit(w uint64) uint64 { return ((w * 0x9E3779B97F4A7C15) >> 40) & f.mask }

// find calls fn with the start and end of each run in s, left to right:
// at each position, the longest run of a needle that starts there and
// is as long as that needle's min; the search goes on after it. The
// decision at a position depends on the next f.longest bytes only, so a
// stream redacted in pieces held back that much finds the same runs.
func (f *fragments) find(s string, fn func(start, end int)) {
	for i := 0; i+minLen <= len(s); {
		w := window(s, i)
		if h := f.bloomBit(w); f.bloom[h>>6]&(1<<(h&63)) == 0 {
			i++
			continue
		}
		best := 0
		for _, ref := range f.at[w] {
			nd := f.needles[ref.needle]
			sec := nd.s[ref.off:]
			n := minLen
			for n < len(sec) && i+n < len(s) && s[i+n] == sec[n] {
				n++
			}
			if n >= nd.min {
				best = max(best, n)
			}
		}
		if best == 0 {
			i++
			continue
		}
		fn(i, i+best)
		i += best
	}
}

// secretPart is the part of a secret value whose fragments are secret. For
// a signed-note private key (OPTR_LEDGER_KEY, "PRIVATE+KEY+<name>+<hash>+
// <key>") that is the key: its name and hash are the verifier key's too,
// published with every signed checkpoint, and must stay readable there.
func secretPart(v string) string {
	if strings.HasPrefix(v, "PRIVATE+KEY+") {
		if i := strings.LastIndexByte(v, '+'); i >= 0 && len(v)-i-1 >= minLen {
			return v[i+1:]
		}
	}
	return v
}
