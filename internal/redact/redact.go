// Package redact removes secret values from text that optr keeps or shows.
// Masking in the Actions log hides a key from the log only; an agent that
// prints a key it inherited would otherwise put it into committed files,
// comments and the ledger. Every agent result passes through a Redactor
// before it is written, checked or shown, and the datalake redacts every
// byte it stores (datalake.OpenRedacted).
package redact

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/provider"
)

// Placeholder replaces each secret value.
const Placeholder = "[redacted]"

// minLen is the shortest value treated as a secret: shorter ones would
// mangle ordinary text and are not credentials anyway. It is also the
// shortest fragment of a secret treated as the secret at a cut edge.
const minLen = 8

// Names lists the environment variables that hold secrets optr knows of:
// the github-token input in both spellings, GitHub's tokens, every
// provider's key variables (from the registry of providers), the runner's
// tokens and the ledger's signing key.
func Names() []string {
	names := []string{"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"}
	for _, k := range provider.KeyVars() {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	return append(names, "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPTR_LEDGER_KEY")
}

// Redactor replaces known secret values. The zero value and nil redact
// nothing.
type Redactor struct {
	values []string
	rep    *strings.Replacer
}

// New returns a Redactor for values (empty and short ones are ignored).
// Each value is also recognised as encoding/json writes it inside a string
// (a key holding '&' or '<' is escaped there), so JSON files are redacted
// too.
func New(values ...string) *Redactor {
	var vs []string
	add := func(v string) {
		if len(v) >= minLen && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		add(v)
		if len(v) >= minLen {
			if q, err := json.Marshal(v); err == nil {
				add(string(q[1 : len(q)-1]))
			}
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(vs, func(a, b string) int { return len(b) - len(a) })
	r := &Redactor{values: vs}
	if len(vs) > 0 {
		pairs := make([]string, 0, 2*len(vs))
		for _, v := range vs {
			pairs = append(pairs, v, Placeholder)
		}
		r.rep = strings.NewReplacer(pairs...)
	}
	return r
}

// FromEnv returns a Redactor for the values of Names and extra variable
// names, read with getenv.
func FromEnv(getenv func(string) string, extra ...string) *Redactor {
	var values []string
	for _, n := range append(Names(), extra...) {
		values = append(values, getenv(n))
	}
	return New(values...)
}

// String returns s with every secret value replaced by Placeholder. Both
// ends of s are treated as cut edges: text that begins with the last 8 or
// more bytes of a secret, or ends with its first 8 or more bytes, is what
// is left of a secret that a cut (a kept tail, a kept head) split, and that
// fragment is replaced too. Redact before cutting; call String again on a
// piece cut from a stream that was never whole.
func (r *Redactor) String(s string) string {
	if r == nil || r.rep == nil {
		return s
	}
	return r.edges(r.rep.Replace(s))
}

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || r.rep == nil {
		return b
	}
	return []byte(r.String(string(b)))
}

// edges replaces a fragment of a secret (minLen bytes or more) at the start
// or the end of s.
func (r *Redactor) edges(s string) string {
	for _, v := range r.values {
		s = cutTail(cutHead(s, v), v)
	}
	return s
}

// cutHead replaces the longest fragment of v (minLen bytes or more, not
// all of it) that ends v and starts s.
func cutHead(s, v string) string {
	for k := min(len(v)-1, len(s)); k >= minLen; k-- {
		if strings.HasPrefix(s, v[len(v)-k:]) {
			return Placeholder + s[k:]
		}
	}
	return s
}

// cutTail replaces the longest fragment of v (minLen bytes or more, not
// all of it) that starts v and ends s.
func cutTail(s, v string) string {
	for k := min(len(v)-1, len(s)); k >= minLen; k-- {
		if strings.HasSuffix(s, v[:k]) {
			return s[:len(s)-k] + Placeholder
		}
	}
	return s
}

// Len is the number of secret values the Redactor knows.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}

// Merge returns a Redactor for the values of every Redactor given (nil ones
// are skipped).
func Merge(rs ...*Redactor) *Redactor {
	var values []string
	for _, r := range rs {
		if r != nil {
			values = append(values, r.values...)
		}
	}
	return New(values...)
}
