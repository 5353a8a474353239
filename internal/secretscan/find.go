package secretscan

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
)

// Set chooses the rules a scan applies.
type Set int

// The rule sets.
const (
	// Tokens are the rules that recognise a secret by its own shape, a
	// secret that starts with the rule's keyword (a ghp_… token, an AKIA…
	// key, a PEM private key). Redaction applies them.
	Tokens Set = iota
	// All adds the rules that guess at a secret from its context
	// (`api_key = "…"` with enough entropy, `curl -u user:password`).
	// Detection applies them.
	All
)

// Match is a secret a rule found in a text.
type Match struct {
	// Rule is the gitleaks rule's id (github-pat, aws-access-token, …).
	Rule string
	// Start and End bound the secret in the text: the rule's secret group,
	// else the whole match.
	Start, End int
}

// lineContext bounds the "line" an allowlist with regexTarget = "line"
// is matched against, either side of the match: an output may be one
// line of many MiB.
const lineContext = 4 << 10

// Find returns the secrets the rules of set find in text, ordered by
// start; they may overlap when two rules match the same bytes. path is the
// file the text belongs to ("" for an agent's output): rules and
// allowlists that name paths use it, as gitleaks does. gitleaks' rules
// apply as gitleaks applies them — keywords first, then the expression,
// the secret group, the entropy floor, the global and the rule's
// allowlists — with three differences: a "gitleaks:allow" comment allows
// nothing (an agent could write one); an expression is run only within
// its reach of a keyword, not over the whole text; and one that cannot
// span lines in a long repetition (all but a few, such as a PEM private
// key) only on the keyword's line. The last two keep a text full of
// common keywords ("password", "secret") from costing a pass of each
// slow expression over all of it.
func Find(text, path string, which Set) []Match {
	s := rules()
	var out []Match
	type window struct{ from, to int }
	windows := map[*rule][]window{}
	var order []*rule
	s.kw.find(text, func(h hit) {
		kl := len(s.kw.words[h.word])
		for _, ri := range s.kw.rules[h.word] {
			r := s.rules[ri]
			if s.shape(r) != nil || !r.token && which == Tokens {
				continue
			}
			w := window{max(0, h.at+kl-r.reach), min(len(text), h.at+r.reach)}
			if r.atStart { // the secret starts at the keyword: a rune before it for \b
				w.from = max(0, h.at-utf8.UTFMax)
			}
			if !r.multiline { // within the keyword's line (and its line break)
				if i := strings.LastIndexByte(text[w.from:h.at], '\n'); i >= 0 {
					w.from += i + 1
				}
				if i := strings.IndexByte(text[h.at+kl:w.to], '\n'); i >= 0 {
					w.to = h.at + kl + i + 1
				}
			}
			ws := windows[r]
			if len(ws) == 0 {
				order = append(order, r)
			}
			if n := len(ws); n > 0 && w.from <= ws[n-1].to {
				ws[n-1].to = max(ws[n-1].to, w.to)
			} else {
				ws = append(ws, w)
			}
			windows[r] = ws
		}
	})
	for _, r := range s.always {
		if which == All && s.shape(r) == nil {
			order = append(order, r)
			windows[r] = []window{{0, len(text)}}
		}
	}
	for _, r := range order {
		cr, err := s.compile(r)
		if err != nil || cr.SkipReport || cr.Regex == nil {
			continue // a rule gitleaks' loader refuses cannot find anything
		}
		if cr.Path != nil && !cr.Path.MatchString(path) {
			continue
		}
		for _, w := range windows[r] {
			part := text[w.from:w.to]
			if !r.mayMatch(part) {
				continue // no match can lie in part
			}
			for _, loc := range cr.Regex.FindAllStringSubmatchIndex(part, -1) {
				if m, ok := s.accept(cr, text, w.from, loc, path); ok {
					out = append(out, m)
				}
			}
		}
	}
	out = dropShadowed(text, out)
	slices.SortFunc(out, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	return out
}

// dropShadowed drops a heuristic match whose secret another rule's match
// on the same line holds, as gitleaks' detector does (its filter): the
// specific rule names the secret better.
func dropShadowed(text string, ms []Match) []Match {
	return slices.DeleteFunc(ms, func(m Match) bool {
		if !strings.HasPrefix(m.Rule, "generic") {
			return false
		}
		for _, o := range ms {
			if !strings.HasPrefix(o.Rule, "generic") && sameLine(text, m.Start, o.Start) &&
				strings.Contains(text[o.Start:o.End], text[m.Start:m.End]) {
				return true
			}
		}
		return false
	})
}

// sameLine reports whether offsets a and b of text are on one line.
func sameLine(text string, a, b int) bool {
	if a > b {
		a, b = b, a
	}
	return !strings.Contains(text[a:b], "\n")
}

// accept turns one match of rule r at loc (offsets into text[off:]) into a
// Match, or refuses it as gitleaks would: too little entropy, or allowed.
func (s *set) accept(r config.Rule, text string, off int, loc []int, path string) (Match, bool) {
	start, end := off+loc[0], off+loc[1]
	// gitleaks trims newlines the expression took at the match's end.
	for end > start && text[end-1] == '\n' {
		end--
	}
	secret := Match{Rule: r.RuleID, Start: start, End: end}
	if len(loc) > 2 { // the secret group, else the first group that matched
		g := r.SecretGroup
		if g == 0 {
			for i := 1; i < len(loc)/2; i++ {
				if loc[2*i] >= 0 && loc[2*i+1] > loc[2*i] {
					g = i
					break
				}
			}
		}
		if g > 0 && 2*g+1 < len(loc) && loc[2*g] >= 0 {
			secret.Start, secret.End = off+loc[2*g], min(end, off+loc[2*g+1])
		}
	}
	if secret.End <= secret.Start {
		return Match{}, false
	}
	value := text[secret.Start:secret.End]
	if r.Entropy != 0 && entropy(value) <= r.Entropy {
		return Match{}, false
	}
	global, err := s.allowlists()
	if err != nil {
		global = nil // allow less, never more
	}
	for _, lists := range [][]*config.Allowlist{global, r.Allowlists} {
		for _, a := range lists {
			if allowed(a, value, text[start:end], lineOf(text, start, end), path) {
				return Match{}, false
			}
		}
	}
	return secret, true
}

// allowed reports whether allowlist a allows a finding, as gitleaks'
// detector decides it (its checkFindingAllowed): with condition OR a
// matching regex or stop word allows it; with AND every check the list has
// must hold, and optr's findings have no commit.
func allowed(a *config.Allowlist, secret, match, line, path string) bool {
	target := secret
	switch a.RegexTarget {
	case "match":
		target = match
	case "line":
		target = line
	}
	regex := a.RegexAllowed(target)
	stop, _ := a.ContainsStopWord(secret)
	if a.MatchCondition != config.AllowlistMatchAnd {
		return regex || stop
	}
	ok := true
	if len(a.Commits) > 0 {
		ok = false
	}
	if len(a.Paths) > 0 {
		ok = ok && a.PathAllowed(path)
	}
	if len(a.Regexes) > 0 {
		ok = ok && regex
	}
	if len(a.StopWords) > 0 {
		ok = ok && stop
	}
	return ok
}

// lineOf is the line holding text[start:end], at most lineContext bytes
// either side of it.
func lineOf(text string, start, end int) string {
	from := max(0, start-lineContext)
	if i := strings.LastIndexByte(text[from:start], '\n'); i >= 0 {
		from += i + 1
	}
	to := min(len(text), end+lineContext)
	if i := strings.IndexByte(text[end:to], '\n'); i >= 0 {
		to = end + i
	}
	return text[from:to]
}

// entropy is the Shannon entropy of s in bits per character, as gitleaks
// computes it (its shannonEntropy lives in its detect package, which this
// one does not link: that package's dependencies cost every optr start
// 860 KB of init allocations).
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	var e float64
	inv := 1 / float64(len(s))
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// PathAllowed reports whether gitleaks' global allowlist skips the file at
// path altogether (lock files, vendored code, images, fonts).
func PathAllowed(path string) bool {
	global, err := rules().allowlists()
	if err != nil || path == "" {
		return false
	}
	for _, a := range global {
		if len(a.Paths) == 0 {
			continue
		}
		if a.MatchCondition == config.AllowlistMatchAnd && (len(a.Regexes) > 0 || len(a.StopWords) > 0 || len(a.Commits) > 0) {
			continue // the path alone does not decide
		}
		if a.PathAllowed(path) {
			return true
		}
	}
	return false
}

// PathRules returns the ids of the rules that flag a file by its path
// alone (a PKCS#12 key store), for a file named path.
func PathRules(path string) []string {
	s := rules()
	var ids []string
	for _, r := range s.paths {
		cr, err := s.compile(r)
		if err == nil && cr.Path != nil && !cr.SkipReport && cr.Path.MatchString(path) {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// Reach is the furthest any rule's match can lie from the keyword that
// prompted it: a text cut into pieces loses no match when each piece is
// scanned with this much of its neighbours around it.
func Reach() int { return maxReach }
