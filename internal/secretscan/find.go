package secretscan

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"
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
// allowlists — with four differences: a "gitleaks:allow" comment allows
// nothing (an agent could write one); the global allowlist's paths
// (lock files, images, gradlew, go.sum, anything under node_modules/)
// exempt a file from the rules that guess from context only, never from
// the token rules (a token is a token wherever it is); an expression is
// run only within its reach of a keyword, not over the whole text; and
// one that cannot span lines in a long repetition (all but a few, such as
// a PEM private key) only on the keyword's line. The last two keep a text
// full of common keywords ("password", "secret") from costing a pass of
// each slow expression over all of it.
func Find(text, path string, which Set) []Match {
	return FindLimited(text, path, which, Limits{}).Matches
}

// Limits bound what a scan (FindLimited) spends; the zero Limits bounds
// nothing, as redaction needs: every token must be found.
type Limits struct {
	// PerRule stops the search for a rule in a text once it found this
	// many matches (0: no bound). Detection needs to know that a rule
	// fired and where, not every place: a text of one `key = "…"` per
	// line would otherwise cost an allowlist check per line.
	PerRule int
	// Work is the budget the scan spends from, shared by every text of
	// one result (nil: no bound).
	Work *Work
}

// Scan is what FindLimited found.
type Scan struct {
	// Matches are ordered by start, as Find's.
	Matches []Match
	// Capped lists the rules that found Limits.PerRule matches and were
	// not looked for further: the text may hold more of them.
	Capped []string
	// Unfinished reports that the work budget ran out before every rule
	// was looked for in all of the text: what was not searched may hold
	// secrets.
	Unfinished bool
}

// FindLimited is Find within limits: each rule is looked for until it has
// found Limits.PerRule matches, and the whole until Limits.Work is spent.
// Its cost is linear in the text: each byte is read by the keyword search
// once and by a bounded number of expressions, each match is judged once,
// and judging whether a specific rule's match shadows a generic one looks
// only at the matches that overlap it.
func FindLimited(text, path string, which Set, lim Limits) Scan {
	s := rules()
	var out Scan
	// A rule's anchor and its required sets speak for every place a match
	// can be only where an ASCII case-insensitive search sees everything
	// (?i) matches: not where a k or an s may be written as the Kelvin or
	// the long s sign.
	ascii := asciiFold(text)
	order, windows, unfinished := s.windows(text, which, ascii, lim.Work)
	out.Unfinished = unfinished
	global, err := s.allowlists()
	if err != nil {
		global = nil // allow less, never more
	}
	exempt := which == All && pathAllowedFor(global, path)
	for _, r := range order {
		if out.Unfinished {
			break
		}
		cr, err := s.compile(r)
		if err != nil || cr.skipReport || cr.regex == nil {
			continue // a rule gitleaks' loader refuses cannot find anything
		}
		if cr.path != nil && !cr.path.MatchString(path) || !r.token && exempt || pathAllowedFor(cr.allowlists, path) {
			continue
		}
		found := 0
	windows:
		for _, w := range windows[r] {
			part := text[w.from:w.to]
			if !r.mayMatch(part, ascii) {
				continue // no match can lie in part
			}
			if !lim.Work.spend(int64(len(part))) {
				out.Unfinished = true
				break
			}
			for _, loc := range cr.regex.FindAllStringSubmatchIndex(part, -1) {
				if !lim.Work.spend(judgeCost) {
					out.Unfinished = true
					break windows
				}
				m, ok := s.accept(cr, global, r.id, text, w.from, loc, path)
				if !ok {
					continue
				}
				out.Matches = append(out.Matches, m)
				if found++; found == lim.PerRule {
					out.Capped = append(out.Capped, r.id)
					break windows
				}
			}
		}
	}
	out.Matches = dropShadowed(text, out.Matches)
	slices.SortFunc(out.Matches, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	return out
}

// window is a stretch [from, to) of a text a rule's expression is run
// over.
type window struct{ from, to int }

// windows returns the rules of which to look for in text, in the order
// their keywords first appear, and for each the stretches of text to
// search: around each keyword, within the rule's reach and (but for
// multiline rules) the keyword's line, where its anchor (when it has one
// and ascii holds) matches. unfinished reports that work ran out.
func (s *set) windows(text string, which Set, ascii bool, work *Work) (order []*rule, windows map[*rule][]window, unfinished bool) {
	windows = map[*rule][]window{}
	// seen caches, per rule, whether the last window it was judged in
	// (from+1, 0 for none; to) may hold a match.
	type judged struct {
		from, to int
		may      bool
	}
	seen := make([]judged, len(s.rules))
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
			if r.anchor != "" && ascii {
				// The window must hold what a match needs first: judged
				// once per rule and window, however many keywords it has.
				if c := &seen[ri]; c.from != w.from+1 || c.to != w.to {
					c.from, c.to, c.may = w.from+1, w.to, r.mayMatch(text[w.from:w.to], ascii)
				}
				if !seen[ri].may {
					continue
				}
				cr, err := s.compile(r)
				if err != nil || unfinished {
					continue
				}
				if !work.spend(int64(w.to - h.at)) {
					unfinished = true
					continue
				}
				if !cr.anchored.MatchString(text[h.at:w.to]) {
					continue // no match of the rule goes on from this keyword
				}
			}
			ws := windows[r]
			if len(ws) == 0 {
				order = append(order, r)
			}
			// Windows that overlap are one (a match is found once); a
			// multiline rule's windows that touch too, as its match may
			// run on. One line's window and the next's stay apart, so that
			// each is searched as the short text it is.
			if n := len(ws); n > 0 && (w.from < ws[n-1].to || r.multiline && w.from == ws[n-1].to) {
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
	return order, windows, unfinished
}

// judgeCost is what judging one match costs in Work units (bytes an
// expression reads): the entropy and the allowlists, whose expressions
// (generic-api-key's is 2 KB of alternatives, case-folded) take about as
// long as reading 16 KB.
const judgeCost = 16 << 10

// Work is a budget of scanning work: bytes read by the rules'
// expressions, and judgeCost for each match judged; and a context whose
// end ends it too. It bounds the time one result's scan takes whatever
// the text: a text built to make every rule search every byte runs out
// of budget, and the caller reports what was not searched. Safe for
// concurrent use.
type Work struct {
	ctx  context.Context
	left *atomic.Int64
}

// NewWork returns a budget of units, which also runs out when ctx ends
// (context.Background for a budget that ends only when spent).
func NewWork(ctx context.Context, units int64) *Work {
	w := &Work{ctx: ctx, left: new(atomic.Int64)}
	w.left.Store(units)
	return w
}

// Within returns the same budget, which also runs out when ctx ends: for
// a scan that shares a budget with others under a context of its own.
func (w *Work) Within(ctx context.Context) *Work { return &Work{ctx: ctx, left: w.left} }

// spend takes n units, and reports false, taking nothing, when fewer are
// left or the context ended. A nil Work is an endless budget.
func (w *Work) spend(n int64) bool {
	if w == nil {
		return true
	}
	if w.ctx.Err() != nil {
		return false
	}
	for {
		left := w.left.Load()
		if left < n {
			return false
		}
		if w.left.CompareAndSwap(left, left-n) {
			return true
		}
	}
}

// Left is what is left of the budget.
func (w *Work) Left() int64 { return w.left.Load() }

// pathAllowedFor reports whether one of lists skips the file at path by
// its path alone (gitleaks' checkCommitOrPathAllowed).
func pathAllowedFor(lists []*allowlist, path string) bool {
	if path == "" {
		return false
	}
	for _, l := range lists {
		if !l.and {
			if l.pathAllowed(path) {
				return true
			}
			continue
		}
		if l.regexes != nil || l.stops != nil || l.paths == nil && !l.commits {
			continue // checked with the finding
		}
		if !l.commits && l.pathAllowed(path) {
			return true
		}
	}
	return false
}

// dropShadowed drops a heuristic match whose secret another rule's match
// on the same line holds, as gitleaks' detector does (its filter): the
// specific rule names the secret better. gitleaks compares every finding
// with every other (quadratic: minutes for a few MB of assignments); here
// a generic match is compared only with the specific matches that overlap
// it, which is where a specific rule finds the secret a generic one found
// too. A generic match whose secret a specific match elsewhere on the line
// happens to hold is kept: a finding more, never one less.
func dropShadowed(text string, ms []Match) []Match {
	var specific []Match
	for _, m := range ms {
		if !strings.HasPrefix(m.Rule, "generic") {
			specific = append(specific, m)
		}
	}
	if len(specific) == 0 || len(specific) == len(ms) {
		return ms
	}
	slices.SortFunc(specific, func(a, b Match) int { return a.Start - b.Start })
	// longest bounds how far before a generic match's start a specific
	// one that overlaps it can start.
	longest := 0
	for _, o := range specific {
		longest = max(longest, o.End-o.Start)
	}
	return slices.DeleteFunc(ms, func(m Match) bool {
		if !strings.HasPrefix(m.Rule, "generic") {
			return false
		}
		i, _ := slices.BinarySearchFunc(specific, m.Start-longest, func(o Match, at int) int { return o.Start - at })
		for ; i < len(specific) && specific[i].Start < m.End; i++ {
			o := specific[i]
			if o.End > m.Start && sameLine(text, m.Start, o.Start) && strings.Contains(text[o.Start:o.End], text[m.Start:m.End]) {
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

// accept turns one match of rule id at loc (offsets into text[off:])
// into a Match, or refuses it as gitleaks would: too little entropy, or
// allowed by the global allowlists or the rule's.
func (s *set) accept(r compiledRule, global []*allowlist, id, text string, off int, loc []int, path string) (Match, bool) {
	start, end := off+loc[0], off+loc[1]
	// gitleaks trims newlines the expression took at the match's end.
	for end > start && text[end-1] == '\n' {
		end--
	}
	secret := Match{Rule: id, Start: start, End: end}
	if len(loc) > 2 { // the secret group, else the first group that matched
		g := r.secretGroup
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
	if r.entropy != 0 && entropy(value) <= r.entropy {
		return Match{}, false
	}
	line := func() string { return lineOf(text, start, end) }
	for _, lists := range [][]*allowlist{global, r.allowlists} {
		for _, a := range lists {
			if a.allows(value, text[start:end], line, path) {
				return Match{}, false
			}
		}
	}
	return secret, true
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

// PathRules returns the ids of the rules that flag a file by its path
// alone (a PKCS#12 key store), for a file named path.
func PathRules(path string) []string {
	s := rules()
	var ids []string
	for _, r := range s.paths {
		cr, err := s.compile(r)
		if err == nil && cr.path != nil && !cr.skipReport && cr.path.MatchString(path) && !pathAllowedFor(cr.allowlists, path) {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// Reach is the furthest any rule's match can lie from the keyword that
// prompted it: a text cut into pieces loses no match when each piece is
// scanned with this much of its neighbours around it.
func Reach() int { return maxReach }
