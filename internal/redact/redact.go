// Package redact removes secrets from text that optr keeps or shows.
// Masking in the Actions log hides a key from the log only; an agent that
// prints a key it inherited would otherwise put it into committed files,
// comments and the ledger. Every agent result passes through a Redactor
// before it is written, checked or shown, and the datalake redacts every
// byte it stores (datalake.OpenRedacted).
//
// A Redactor replaces two kinds of secret: the values it knows — the
// environment's keys and tokens, and every value optr hands an agent or a
// check (pass-env, env: values that look secret, the model gateway's
// placeholder keys: ForConfig, Add) — whole or as any fragment of 8 or
// more bytes wherever it appears (a key split across lines, cut at an
// edge, or quoted in part), and encoded: reversed, hex, base64 and
// base64url (encoded.go); and token-shaped strings of any origin (an
// NPM_TOKEN optr never heard of), found by gitleaks' rule set (package
// secretscan, the same rules threat detection applies). A code change
// that holds a known value, even cut into pieces shorter than 8 bytes
// over lines and files, is refused (HoldsAcross).
package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
// returns one that also replaces token-shaped strings. A Redactor is safe
// for concurrent use, and the values it knows only grow (Add): whoever
// holds it — a spool, the datalake, a comment — redacts what was added
// after it was handed over.
type Redactor struct {
	tokens bool // token-shaped strings by pattern (secretscan.Tokens)
	// parents are the Redactors whose values this one knows too (Merge,
	// Values), as they are when it is used.
	parents []*Redactor

	mu  sync.Mutex // serialises Add and the rebuilds of cur
	own []string   // the values given to this Redactor (New, Add)
	gen uint64     // bumped by Add
	cur atomic.Pointer[state]
}

// state is what a Redactor knows at one time: its values and theirs
// (parents'), and the index that finds them.
type state struct {
	values []string // whole values, longest first
	frags  *fragments
	// gens are the generations this state was built from: its own, then
	// each parent's.
	gens []uint64
	// across finds the values in text squeezed of what cuts them into
	// pieces (HoldsAcross), built on first use.
	acrossOnce sync.Once
	across     *fragments
}

// New returns a Redactor for values (empty and short ones are ignored)
// and for token-shaped strings. Each value is also recognised as
// encoding/json writes it inside a string (a key holding '&' or '<' is
// escaped there), so JSON files are redacted too.
func New(values ...string) *Redactor {
	r := &Redactor{tokens: true}
	r.own = addValues(nil, values)
	return r
}

// addValues adds values to vs: trimmed, with their JSON-escaped forms,
// but empty, short and repeated ones.
func addValues(vs, values []string) []string {
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
	return vs
}

// Add makes values known to r (and to every Redactor built from it with
// Merge or Values): the way to register a value optr hands out once r is
// in use, such as the model gateway's placeholder key for an agent. It
// must be called before the value is handed out.
func (r *Redactor) Add(values ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.own)
	r.own = addValues(r.own, values)
	if len(r.own) != n {
		r.gen++
	}
}

// state returns what r knows now, rebuilt when r or a parent learnt a
// value since.
func (r *Redactor) state() *state {
	if r == nil {
		return &state{}
	}
	st := r.cur.Load()
	if st != nil && r.fresh(st) {
		return st
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st = r.cur.Load(); st != nil && r.fresh(st) {
		return st
	}
	gens := []uint64{r.gen}
	vs := slices.Clone(r.own)
	for _, p := range r.parents {
		ps := p.state()
		gens = append(gens, ps.gens...)
		for _, v := range ps.values {
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortStableFunc(vs, func(a, b string) int { return len(b) - len(a) })
	st = &state{values: vs, gens: gens}
	if len(vs) > 0 {
		st.frags = newFragments(needles(vs))
	}
	r.cur.Store(st)
	return st
}

// fresh reports whether st was built from the generations r and its
// parents are at now.
func (r *Redactor) fresh(st *state) bool {
	if len(st.gens) == 0 || st.gens[0] != r.gen {
		return false
	}
	i := 1
	for _, p := range r.parents {
		ps := p.state()
		if i+len(ps.gens) > len(st.gens) || !slices.Equal(st.gens[i:i+len(ps.gens)], ps.gens) {
			return false
		}
		i += len(ps.gens)
	}
	return true
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
// of a known value (or of its encodings) by Placeholder, each token-shaped
// string by TokenPlaceholder of its rule. Where a value and a token
// overlap, the whole stretch is one Placeholder.
func (r *Redactor) String(s string) string {
	if !r.Active() {
		return s
	}
	spans := r.spans(r.state(), s, 0)
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

// Holds reports whether s holds a known secret value, a fragment of one or
// an encoding of one (token-shaped strings aside): a code change that
// does must never be stored or pushed, while a token-shaped string in one
// is for threat detection to judge.
func (r *Redactor) Holds(s string) bool {
	st := r.state()
	if st.frags == nil {
		return false
	}
	found := false
	st.frags.find(s, func(int, int) { found = true })
	return found
}

// Active reports whether the Redactor replaces anything: false for nil and
// the zero value.
func (r *Redactor) Active() bool { return r != nil && (r.tokens || r.state().frags != nil) }

// Values returns a Redactor for r's known values alone, without tokens:
// for a code change, whose token-shaped strings threat detection judges
// (replacing them would make a patch that no longer applies). It knows
// what r learns later too.
func (r *Redactor) Values() *Redactor {
	if r == nil {
		return nil
	}
	return &Redactor{parents: []*Redactor{r}}
}

// Len is the number of secret values the Redactor knows.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.state().values)
}

// Merge returns a Redactor for the values of every Redactor given (nil ones
// are skipped), which also replaces token-shaped strings. It knows what
// they learn later too.
func Merge(rs ...*Redactor) *Redactor {
	m := &Redactor{tokens: true}
	for _, r := range rs {
		if r != nil {
			m.parents = append(m.parents, r)
		}
	}
	return m
}
