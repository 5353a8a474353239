package env

import (
	"slices"
	"strings"
)

// baseNames are the variables Base copies from optr's environment when
// they are set: how to find programs, the locale, the terminal, the time
// zone, whether this is CI, where the runner keeps its tools, and the
// non-secret context of a GitHub Actions run. SSL_CERT_FILE, SSL_CERT_DIR
// and NODE_EXTRA_CA_CERTS say which certificate authorities to trust
// (needed behind a corporate TLS proxy); they name files, not secrets.
var baseNames = []string{
	"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "CI",
	"GITHUB_REPOSITORY", "GITHUB_SERVER_URL", "GITHUB_RUN_ID", "GITHUB_SHA", "GITHUB_REF",
	"GITHUB_EVENT_NAME", "GITHUB_ACTIONS", "GITHUB_WORKSPACE",
	"RUNNER_OS", "RUNNER_ARCH", "RUNNER_TOOL_CACHE",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// DefaultPath is the PATH a process gets when optr's own has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Base returns the allowlisted variables of environ ("KEY=value" pairs,
// as os.Environ gives them), in a stable order: baseNames, then the LC_*
// locale categories in the order environ has them. PATH is always there
// (DefaultPath when environ has none). Nothing else of environ — tokens,
// keys, INPUT_*, ACTIONS_*, OPTR_* — can reach the result.
func Base(environ []string) []string {
	vals := map[string]string{}
	var lc []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if strings.HasPrefix(k, "LC_") && k != "LC_" && !slices.Contains(lc, k) {
			lc = append(lc, k)
		}
		vals[k] = v
	}
	if vals["PATH"] == "" {
		vals["PATH"] = DefaultPath
	}
	out := make([]string, 0, len(baseNames)+len(lc))
	for _, k := range append(slices.Clone(baseNames), lc...) {
		if v, ok := vals[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// Lookup returns the value of key in environ, the last one when it is set
// twice (as the kernel's getenv sees it after exec).
func Lookup(environ []string, key string) (string, bool) {
	for _, kv := range slices.Backward(environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Merge joins lists of "KEY=value" entries into one environment with one
// entry per variable: a later value replaces an earlier one, at the place
// of the first. Entries without '=' are dropped; the lists are not
// changed. Every environment optr starts a process with is made by it.
func Merge(lists ...[]string) []string {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	at := make(map[string]int, n)
	out := make([]string, 0, n)
	for _, l := range lists {
		for _, kv := range l {
			k, _, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			if i, seen := at[k]; seen {
				out[i] = kv
				continue
			}
			at[k] = len(out)
			out = append(out, kv)
		}
	}
	return out
}

// lcNames are the locale categories FromGetenv looks for (it cannot list
// the environment).
var lcNames = []string{"LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME"}

// FromGetenv is Base for a caller that can only look variables up: the
// allowlisted variables getenv has, then the common LC_* categories.
func FromGetenv(getenv func(string) string) []string {
	var environ []string
	for _, k := range append(slices.Clone(baseNames), lcNames...) {
		if v := getenv(k); v != "" {
			environ = append(environ, k+"="+v)
		}
	}
	return Base(environ)
}
