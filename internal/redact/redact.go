// Package redact removes secret values from text that optr keeps or shows.
// Masking in the Actions log hides a key from the log only; an agent that
// prints a key it inherited would otherwise put it into committed files,
// comments and the ledger. Every agent result passes through a Redactor
// before it is written, checked or shown.
package redact

import (
	"slices"
	"strings"
)

// Placeholder replaces each secret value.
const Placeholder = "[redacted]"

// minLen is the shortest value treated as a secret: shorter ones would
// mangle ordinary text and are not credentials anyway.
const minLen = 8

// Names lists the environment variables that hold secrets optr knows of.
func Names() []string {
	return []string{
		"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
		"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY",
		"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	}
}

// Redactor replaces known secret values. The zero value redacts nothing.
type Redactor struct {
	values []string
	rep    *strings.Replacer
}

// New returns a Redactor for values (empty and short ones are ignored).
func New(values ...string) *Redactor {
	var vs []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) >= minLen && !slices.Contains(vs, v) {
			vs = append(vs, v)
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

// String returns s with every secret value replaced by Placeholder.
func (r *Redactor) String(s string) string {
	if r == nil || r.rep == nil {
		return s
	}
	return r.rep.Replace(s)
}

// Len is the number of secret values the Redactor knows.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}
