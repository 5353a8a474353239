package redact

import (
	"slices"

	"github.com/optr-dev/optr/internal/secretscan"
)

// span is a stretch [start, end) of a text to replace with with.
type span struct {
	start, end int
	with       string
}

// spans returns the stretches of text[from:] to replace, in order and not
// overlapping, with offsets into text. Known values are looked for in
// text[from:] alone (a run needs no byte before it); tokens in the whole
// of text, whose head is context a pattern may need (a token's prefix, a
// word boundary), and only those that end past from are kept, cut to
// start there at the earliest.
func (r *Redactor) spans(st *state, text string, from int) []span {
	var out []span
	if st.frags != nil {
		st.frags.find(text[from:], func(s, e int) {
			out = append(out, span{from + s, from + e, Placeholder})
		})
	}
	if r.tokens {
		for _, m := range secretscan.Find(text, "", secretscan.Tokens) {
			if m.End > from {
				out = append(out, span{max(m.Start, from), m.End, TokenPlaceholder(m.Rule)})
			}
		}
	}
	if len(out) < 2 {
		return out
	}
	slices.SortStableFunc(out, func(a, b span) int { return a.start - b.start })
	merged := out[:1]
	for _, sp := range out[1:] {
		last := &merged[len(merged)-1]
		if sp.start >= last.end {
			merged = append(merged, sp)
			continue
		}
		last.end = max(last.end, sp.end)
		if sp.with == Placeholder {
			last.with = Placeholder // a known value decides what the stretch is called
		}
	}
	return merged
}
