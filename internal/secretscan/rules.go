package secretscan

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// maxReach bounds how far from its keyword a match is looked for when the
// rule's expression has no bound of its own (a private key's body, a JWT):
// an 8192-bit RSA key in PEM is about 6.4 KiB.
const maxReach = 8 << 10

// rule is one of gitleaks' rules. Its expressions are compiled the first
// time a text needs them.
type rule struct {
	id    string
	index int // in set.file.Rules
	// reach is the longest a match of the rule's expression can be, in
	// bytes (maxReach when unbounded): a match holds one of the rule's
	// keywords, so it lies within reach of it.
	reach int
	// token rules find a secret by its own shape: the secret (the rule's
	// secret group, else the match) starts with or holds one of the
	// rule's keywords — ghp_, npm_, AKIA, -----BEGIN … PRIVATE KEY, an
	// OpenAI key's T3BlbkFJ. The others
	// guess at a secret from its context (`password = "…"`, `curl -u`,
	// a Kubernetes Secret's data) and entropy: detection applies them,
	// redaction does not (they would mangle ordinary code, and their
	// expressions, which must search a whole line or more around a
	// common word, scan at 1 MB/s — far too slow for every byte of every
	// output).
	token bool
	// atStart: the token starts with the keyword, so it is looked for
	// only from the keyword on.
	atStart  bool
	pathOnly bool // a rule on file names alone (a .p12 file)
	// multiline rules are looked for across lines (spansLines); every
	// other within the line of its keyword, which makes a rule whose
	// keyword is a common word ("password", "secret", "ey") cheap.
	multiline bool
	keywords  bool // the rule has keywords: run it only near one
	// required are sets of strings every match holds one of, and
	// minWidth the fewest bytes a match has (required.go): a window
	// without one of a set's, or shorter, is not searched.
	required []oneOf
	minWidth int
	// anchor is the expression tried at each keyword first (anchorOf),
	// "" when the rule has none.
	anchor string

	shapeOnce sync.Once
	shapeErr  error

	once     sync.Once
	compiled compiledRule
	err      error
}

// compiledRule is a rule as gitleaks' loader builds it (its config.Rule):
// the expressions compiled, the allowlists that apply to it (its own, and
// the global ones that target it).
type compiledRule struct {
	regex, path *regexp.Regexp
	// anchored is the rule's anchor compiled, nil without one.
	anchored    *regexp.Regexp
	secretGroup int
	entropy     float64
	skipReport  bool
	allowlists  []*allowlist
}

// set is gitleaks' default rule set, decoded once per process.
type set struct {
	file   *ruleFile
	lists  [][]*fileAllowlist // per rule, the allowlists that apply to it
	rules  []*rule
	kw     *keywords
	always []*rule // rules with an expression and no keyword: run on every text
	paths  []*rule // path-only rules

	globalLists []*fileAllowlist
	globalOnce  sync.Once
	global      []*allowlist
	globalErr   error
}

// rules returns the rule set; the embedded file is gitleaks' own and is
// checked by this package's tests, so a failure to load it is a broken
// build, not a condition to handle.
var rules = sync.OnceValue(func() *set {
	s, err := load(gitleaksJSON)
	if err != nil {
		panic(fmt.Sprintf("secretscan: gitleaks' rule set does not load: %v", err))
	}
	return s
})

// Load loads the rule set now rather than on first use (Find): a caller
// that is about to wait on something else (a run, on git and the
// sandbox's probes before its first agent) pays for it there instead of
// on its first redaction.
func Load() { rules() }

// load decodes and checks a gitleaks rule file; its expressions are
// compiled when first needed (compile). gitleaks' own loader
// (config.ViperConfig, read through viper) is not linked:
// TestLoaderAgreesWithGitleaks holds this one to its results.
func load(file string) (*set, error) {
	f, err := decodeRuleFile(file)
	if err != nil {
		return nil, err
	}
	perRule, global, err := checkRuleFile(f)
	if err != nil {
		return nil, err
	}
	s := &set{file: f, lists: perRule, globalLists: global, kw: newKeywords()}
	for i, vr := range f.Rules {
		r := &rule{id: vr.ID, index: i, keywords: len(vr.Keywords) > 0}
		switch {
		case vr.Regex == "":
			r.pathOnly = true
			s.paths = append(s.paths, r)
		case !r.keywords:
			s.always = append(s.always, r)
		}
		s.rules = append(s.rules, r)
		if !r.pathOnly {
			for _, k := range vr.Keywords {
				s.kw.add(strings.ToLower(k), len(s.rules)-1)
			}
		}
	}
	return s, nil
}

// shape works out, once, what the rule's expression says about where its
// matches lie and whether it is a token rule (reach, multiline, token,
// atStart): on first use, as the parse costs most of loading.
func (s *set) shape(r *rule) error {
	r.shapeOnce.Do(func() {
		vr := s.file.Rules[r.index]
		re, err := syntax.Parse(vr.Regex, syntax.Perl)
		if err != nil {
			r.shapeErr = fmt.Errorf("rule %s: %w", r.id, err)
			return
		}
		r.reach, r.multiline = maxWidth(re), spansLines(re)
		r.required, r.minWidth = requiredSets(re.Simplify()), minWidth(re.Simplify())
		if r.keywords && !r.multiline {
			r.anchor, _ = anchorOf(re, vr.Keywords)
		}
		if r.keywords && !strings.HasPrefix(vr.ID, "generic") {
			secret := secretOf(re, vr.SecretGroup)
			// The match must start where the secret does, but for what
			// may match nothing (lob-api-key's secret follows "lob … =").
			rest := dropOptionalStart(re)
			r.atStart = startsWithKeyword(secret, vr.Keywords) && rest != nil && startsWithKeyword(rest, vr.Keywords)
			r.token = r.atStart || holdsKeyword(secret, vr.Keywords)
		}
	})
	return r.shapeErr
}

// compile returns the rule as gitleaks' loader builds it, refusing what
// that loader refuses (an expression that does not compile, a secret
// group the expression does not have).
func (s *set) compile(r *rule) (compiledRule, error) {
	r.once.Do(func() {
		if !r.pathOnly {
			_ = s.shape(r) // the anchor; a rule that does not parse fails below
		}
		vr := s.file.Rules[r.index]
		c := compiledRule{secretGroup: vr.SecretGroup, entropy: vr.Entropy, skipReport: vr.SkipReport}
		var err error
		if vr.Regex != "" {
			if c.regex, err = regexp.Compile(vr.Regex); err != nil {
				r.err = fmt.Errorf("rule %s: %w", r.id, err)
				return
			}
			if vr.SecretGroup > c.regex.NumSubexp() {
				r.err = fmt.Errorf("%s: invalid regex secret group %d, max regex secret group %d", r.id, vr.SecretGroup, c.regex.NumSubexp())
				return
			}
			if r.anchor != "" {
				if c.anchored, err = regexp.Compile(r.anchor); err != nil {
					r.err = fmt.Errorf("rule %s: its anchor %s: %w", r.id, r.anchor, err)
					return
				}
			}
		}
		if vr.Path != "" {
			if c.path, err = regexp.Compile(vr.Path); err != nil {
				r.err = fmt.Errorf("rule %s: path: %w", r.id, err)
				return
			}
		}
		for _, a := range s.lists[r.index] {
			l, err := compileAllowlist(a)
			if err != nil {
				r.err = fmt.Errorf("rule %s: allowlist: %w", r.id, err)
				return
			}
			c.allowlists = append(c.allowlists, l)
		}
		r.compiled = c
	})
	return r.compiled, r.err
}

// allowlists returns the rule set's global allowlists, compiled once.
func (s *set) allowlists() ([]*allowlist, error) {
	s.globalOnce.Do(func() {
		for _, a := range s.globalLists {
			l, err := compileAllowlist(a)
			if err != nil {
				s.global, s.globalErr = nil, fmt.Errorf("the global allowlist: %w", err)
				return
			}
			s.global = append(s.global, l)
		}
	})
	return s.global, s.globalErr
}

// maxWidth is the most bytes a match of re can span, maxReach when that
// is more or unbounded.
func maxWidth(re *syntax.Regexp) int {
	w := width(re.Simplify())
	if w < 0 || w > maxReach {
		return maxReach
	}
	return w
}

// width is the most bytes re can match, -1 when unbounded.
func width(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			most := runeBytes(r)
			if re.Flags&syntax.FoldCase != 0 { // (?i)k also matches the Kelvin sign
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					most = max(most, runeBytes(f))
				}
			}
			n += most
		}
		return n
	case syntax.OpCharClass:
		most := 0
		for i := 1; i < len(re.Rune); i += 2 {
			most = max(most, runeBytes(re.Rune[i]))
		}
		return most
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpCapture, syntax.OpQuest:
		return width(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		w := width(re.Sub[0])
		if re.Max < 0 || w < 0 {
			return -1
		}
		return w * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			w := width(sub)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += w
			} else {
				total = max(total, w)
			}
		}
		return total
	}
	return 0 // empty-width assertions
}

func runeBytes(r rune) int {
	switch {
	case r < 0x80:
		return 1
	case r < 0x800:
		return 2
	case r < 0x10000:
		return 3
	}
	return 4
}

// spansLines reports whether re can match a line break inside a
// repetition of more than a few characters (a PEM block's body, a YAML
// block): such a match is looked for across lines, every other within the
// line of its keyword.
func spansLines(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if (re.Op != syntax.OpRepeat || re.Max < 0 || re.Max > 5) && matchesNewline(re.Sub[0]) {
			return true
		}
	}
	for _, sub := range re.Sub {
		if spansLines(sub) {
			return true
		}
	}
	return false
}

// matchesNewline reports whether re can consume a '\n'.
func matchesNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
		return false
	}
	for _, sub := range re.Sub {
		if matchesNewline(sub) {
			return true
		}
	}
	return false
}

// secretOf is the part of re that matches the secret: its capture group
// secretGroup, else its first group, else all of it.
func secretOf(re *syntax.Regexp, secretGroup int) *syntax.Regexp {
	if secretGroup == 0 {
		secretGroup = 1
	}
	if g := capture(re, secretGroup); g != nil {
		return g
	}
	return re
}

// startsWithKeyword reports whether every string secret can start with
// begins with one of keywords, ignoring case: a literal start that holds a
// keyword, or is the start of one ("gh" of (?:ghs|ghu)_, keywords ghs_
// and ghu_).
func startsWithKeyword(secret *syntax.Regexp, keywords []string) bool {
	starts, ok := leading(secret)
	if !ok || len(starts) == 0 {
		return false
	}
	for _, s := range starts {
		if len(s) < 2 || !slices.ContainsFunc(keywords, func(k string) bool {
			k = strings.ToLower(k)
			return strings.HasPrefix(s, k) || strings.HasPrefix(k, s)
		}) {
			return false
		}
	}
	return true
}

// holdsKeyword reports whether a literal of secret holds one of keywords
// (an OpenAI key's T3BlbkFJ), ignoring case: the token carries its own
// mark, wherever in it.
func holdsKeyword(secret *syntax.Regexp, keywords []string) bool {
	if secret.Op == syntax.OpLiteral {
		lit := strings.ToLower(string(secret.Rune))
		return slices.ContainsFunc(keywords, func(k string) bool { return strings.Contains(lit, strings.ToLower(k)) })
	}
	return slices.ContainsFunc(secret.Sub, func(sub *syntax.Regexp) bool { return holdsKeyword(sub, keywords) })
}

// capture returns the capture group numbered n in re, or nil.
func capture(re *syntax.Regexp, n int) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == n {
		return re
	}
	for _, sub := range re.Sub {
		if g := capture(sub, n); g != nil {
			return g
		}
	}
	return nil
}

// leading returns the literal text every match of re starts with, one per
// alternative, lower-cased; ok is false when some alternative starts with
// anything but a literal (a class, a repetition).
func leading(re *syntax.Regexp) (starts []string, ok bool) {
	starts, _, ok = literalStart(re)
	return starts, ok
}

// literalStart is leading, and whether each start is all re matches
// (re is literal text through and through).
func literalStart(re *syntax.Regexp) (starts []string, whole, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true, true
	case syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEmptyMatch:
		return []string{""}, true, true // takes no text
	case syntax.OpCapture:
		return literalStart(re.Sub[0])
	case syntax.OpAlternate:
		whole = true
		for _, sub := range re.Sub {
			s, w, ok := literalStart(sub)
			if !ok {
				return nil, false, false
			}
			starts, whole = append(starts, s...), whole && w
		}
		return starts, whole, true
	case syntax.OpConcat:
		starts = []string{""}
		for _, sub := range re.Sub {
			s, w, ok := literalStart(sub)
			if !ok {
				return starts, false, true // what came before, possibly ""
			}
			var next []string
			for _, a := range starts {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			starts = next
			if !w {
				return starts, false, true
			}
		}
		return starts, true, true
	}
	return nil, false, false
}
