package redact

import (
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/secretscan"
)

// ForConfig returns the Redactor of a run of cfg: it knows every value
// optr hands an agent or a check — the secret variables of Names, each
// agent's api-key-env and pass-env as getenv has them, each agent's env:
// values that look like secrets (LooksSecret) — and extra. A value the run
// hands out later (the model gateway's placeholder key for an agent) is
// added with Add before it is.
func ForConfig(cfg *config.Config, getenv func(string) string, extra ...string) *Redactor {
	var names []string
	values := extra
	if cfg != nil {
		for _, n := range cfg.AgentNames {
			a := cfg.Agents[n]
			if a.APIKeyEnv != "" {
				names = append(names, a.APIKeyEnv)
			}
			names = append(names, a.PassEnv...)
			for k, v := range a.Env {
				if LooksSecret(k, v) {
					values = append(values, v)
				}
			}
		}
	}
	r := FromEnv(getenv, names...)
	r.Add(values...)
	return r
}

// secretWords are words of a variable's name (cut at _, - and .) that say
// its value is a secret; secretEnds end such words (APIKEY, AUTHTOKEN).
var (
	secretWords = []string{"KEY", "KEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PWD", "AUTH",
		"CREDENTIAL", "CREDENTIALS", "CREDS", "PRIVATE", "WEBHOOK", "SESSION", "COOKIE", "DSN", "SIGNATURE", "CERT", "PAT"}
	secretEnds = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "WEBHOOK", "APIKEY", "ACCESSKEY", "PRIVATEKEY", "SECRETKEY", "SIGNINGKEY"}
)

// LooksSecret reports whether a variable's value looks like a secret: its
// name says so (…_KEY, APIKEY, …TOKEN, PASSWORD, WEBHOOK, …; not AUTHOR
// nor KEYBOARD), the value has a
// token's shape (gitleaks' token rules), it is a URL with a password or
// with a long random part (a webhook: hooks.slack.com/services/…), or it
// is one long random-looking word. Values under 8 bytes are not secrets
// here (redaction ignores them).
func LooksSecret(name, value string) bool {
	value = strings.TrimSpace(value)
	if len(value) < minLen {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if slices.Contains(secretWords, w) || slices.ContainsFunc(secretEnds, func(e string) bool { return strings.HasSuffix(w, e) }) {
			return true
		}
	}
	if len(secretscan.Find(value, "", secretscan.Tokens)) > 0 {
		return true
	}
	if u, err := url.Parse(value); err == nil && u.Scheme != "" && u.Host != "" {
		if _, ok := u.User.Password(); ok {
			return true
		}
		return randomRun(u.Path+"?"+u.RawQuery, 16, 3)
	}
	return !strings.ContainsAny(value, " \t\n") && randomRun(value, 20, 3.5)
}

// randomRun reports whether s holds a run of at least n letters and
// digits (both) with at least bits of entropy per character: a key, not
// a word or an option.
func randomRun(s string, n int, bits float64) bool {
	for _, run := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if randomWord(run, n, bits) {
			return true
		}
	}
	return false
}

// randomWord reports whether s, letters and digits, is at least n bytes
// of both with at least bits of entropy per character.
func randomWord(s string, n int, bits float64) bool {
	if len(s) < n {
		return false
	}
	letters, digits := false, false
	counts := map[rune]int{}
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters = true
		}
		counts[c]++
	}
	if !letters || !digits {
		return false
	}
	var e float64
	for _, k := range counts {
		f := float64(k) / float64(len(s))
		e -= f * math.Log2(f)
	}
	return e >= bits
}
