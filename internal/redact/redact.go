// Package redact removes secrets from text that optr keeps or shows.
// Masking in the Actions log hides a key from the log only; an agent that
// prints a key it inherited would otherwise put it into committed files,
// comments and the ledger. Every agent result passes through a Redactor
// before it is written, checked or shown, and the datalake redacts every
// byte it stores (datalake.OpenRedacted).
//
// A Redactor replaces two kinds of secret: the values it was given (the
// environment's keys and tokens), whole or as any fragment of 8 or more
// bytes wherever it appears — a key split across lines, cut at an edge,
// or quoted in part — and token-shaped strings of any origin (an
// NPM_TOKEN optr never heard of), found by gitleaks' rule set (package
// secretscan, the same rules threat detection applies).
package redact

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/provider"
)

// Placeholder replaces each known secret value, or fragment of one.
const Placeholder = "[redacted]"

// TokenPlaceholder returns what replaces a token-shaped string that
// gitleaks' rule (github-pat, npm-access-token, …) found: the rule is
// named, so a reader (and threat detection) knows what was there.
func TokenPlaceholder(rule string) string { return "[redacted:" + rule + "]" }

// minLen is the shortest value treated as a secret: shorter ones would
// mangle ordinary text and are not credentials anyway. It is also the
// shortest fragment of a secret that is replaced.
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

// Redactor replaces secrets. The zero value and nil redact nothing; New
// returns one that also replaces token-shaped strings.
type Redactor struct {
	values []string // whole values, longest first
	frags  *fragments
	tokens bool // token-shaped strings by pattern (secretscan.Tokens)
}

// New returns a Redactor for values (empty and short ones are ignored)
// and for token-shaped strings. Each value is also recognised as
// encoding/json writes it inside a string (a key holding '&' or '<' is
// escaped there), so JSON files are redacted too.
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
	r := &Redactor{values: vs, tokens: true}
	var parts []string
	for _, v := range vs {
		if p := secretPart(v); len(p) >= minLen && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	if len(parts) > 0 {
		r.frags = newFragments(parts)
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

// String returns s with every secret replaced: each run of 8 or more bytes
// of a known value by Placeholder, each token-shaped string by
// TokenPlaceholder of its rule. Where a value and a token overlap, the
// whole stretch is one Placeholder.
func (r *Redactor) String(s string) string {
	if !r.Active() {
		return s
	}
	spans := r.spans(s, 0)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for _, sp := range spans {
		b.WriteString(s[pos:sp.start])
		b.WriteString(sp.with)
		pos = sp.end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte {
	if !r.Active() {
		return b
	}
	return []byte(r.String(string(b)))
}

// Holds reports whether s holds a known secret value or a fragment of one
// (token-shaped strings aside): a code change that does must never be
// stored or pushed, while a token-shaped string in one is for threat
// detection to judge.
func (r *Redactor) Holds(s string) bool {
	if r == nil || r.frags == nil {
		return false
	}
	found := false
	r.frags.find(s, func(int, int) { found = true })
	return found
}

// Active reports whether the Redactor replaces anything: false for nil and
// the zero value.
func (r *Redactor) Active() bool { return r != nil && (r.tokens || r.frags != nil) }

// Values returns a Redactor for r's known values alone, without tokens:
// for a code change, whose token-shaped strings threat detection judges
// (replacing them would make a patch that no longer applies).
func (r *Redactor) Values() *Redactor {
	if r == nil {
		return nil
	}
	v := *r
	v.tokens = false
	return &v
}

// Len is the number of secret values the Redactor knows.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}

// Merge returns a Redactor for the values of every Redactor given (nil ones
// are skipped), which also replaces token-shaped strings.
func Merge(rs ...*Redactor) *Redactor {
	var values []string
	for _, r := range rs {
		if r != nil {
			values = append(values, r.values...)
		}
	}
	return New(values...)
}
