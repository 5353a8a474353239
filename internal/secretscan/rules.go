package secretscan

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// maxReach bounds how far from its keyword a match is looked for when the
// rule's expression has no bound of its own (a private key's body, a JWT):
// an 8192-bit RSA key in PEM is about 6.4 KiB.
const maxReach = 8 << 10

// rule is one of gitleaks' rules. Its expressions are compiled, with
// gitleaks' own loader (config.ViperConfig.Translate, one rule at a
// time), the first time a text needs them.
type rule struct {
	id    string
	index int // in set.vc.Rules
	// reach is the longest a match of the rule's expression can be, in
	// bytes (maxReach when unbounded): a match holds one of the rule's
	// keywords, so it lies within reach of it.
	reach int
	// heuristic rules (gitleaks' generic-*) guess at secrets from
	// assignments such as `password = "…"` and entropy, not from a
	// token's shape: detection reports them, redaction leaves them (they
	// would mangle ordinary code, and their expression scans at under
	// 1 MB/s, far too slow for every byte of every output).
	heuristic bool
	pathOnly  bool // a rule on file names alone (a .p12 file)
	keywords  bool // the rule has keywords: run it only near one

	once     sync.Once
	compiled config.Rule
	err      error
}

// set is gitleaks' default rule set, decoded once per process.
type set struct {
	vc     config.ViperConfig
	rules  []*rule
	kw     *keywords
	always []*rule // rules with an expression and no keyword: run on every text
	paths  []*rule // path-only rules

	globalOnce sync.Once
	global     []*config.Allowlist
	globalErr  error
}

// rules returns the rule set; the embedded file is gitleaks' own and is
// checked by this package's tests, so a failure to load it is a broken
// build, not a condition to handle.
var rules = sync.OnceValue(func() *set {
	s, err := load(config.DefaultConfig)
	if err != nil {
		panic(fmt.Sprintf("secretscan: gitleaks' rule set does not load: %v", err))
	}
	return s
})

// load decodes a gitleaks config. It decodes the TOML into gitleaks'
// config.ViperConfig with go-toml, the parser viper itself uses, instead
// of through viper: the same result (TestDecodeAsViper) in 3 ms instead
// of 20 ms and 2.3 MiB, paid by every run that redacts anything.
func load(file string) (*set, error) {
	s := &set{}
	dec := toml.NewDecoder(strings.NewReader(file))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.vc); err != nil {
		return nil, fmt.Errorf("decode gitleaks.toml: %w", err)
	}
	s.kw = newKeywords()
	for i, vr := range s.vc.Rules {
		r := &rule{id: vr.ID, index: i, heuristic: strings.HasPrefix(vr.ID, "generic"), keywords: len(vr.Keywords) > 0}
		switch {
		case vr.Regex == "" && vr.Path != "":
			r.pathOnly = true
			s.paths = append(s.paths, r)
		case vr.Regex == "":
			return nil, fmt.Errorf("rule %s has neither regex nor path", vr.ID)
		default:
			width, err := maxWidth(vr.Regex)
			if err != nil {
				return nil, fmt.Errorf("rule %s: %w", vr.ID, err)
			}
			r.reach = width
			if !r.keywords {
				s.always = append(s.always, r)
			}
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

// compile returns the rule as gitleaks' loader builds it.
func (s *set) compile(r *rule) (config.Rule, error) {
	r.once.Do(func() {
		defer func() {
			if p := recover(); p != nil { // gitleaks compiles with MustCompile
				r.err = fmt.Errorf("rule %s does not compile: %v", r.id, p)
			}
		}()
		one := config.ViperConfig{Rules: s.vc.Rules[r.index : r.index+1]}
		cfg, err := one.Translate()
		if err != nil {
			r.err = fmt.Errorf("rule %s: %w", r.id, err)
			return
		}
		r.compiled = cfg.Rules[r.id]
	})
	return r.compiled, r.err
}

// allowlists returns the rule set's global allowlists, compiled once.
func (s *set) allowlists() ([]*config.Allowlist, error) {
	s.globalOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				s.globalErr = fmt.Errorf("the global allowlist does not compile: %v", p)
			}
		}()
		g := config.ViperConfig{AllowList: s.vc.AllowList, Allowlists: s.vc.Allowlists}
		cfg, err := g.Translate()
		s.global, s.globalErr = cfg.Allowlists, err
	})
	return s.global, s.globalErr
}

// maxWidth is the most bytes a match of expr can span, maxReach when
// that is more or unbounded.
func maxWidth(expr string) (int, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0, err
	}
	w := width(re.Simplify())
	if w < 0 || w > maxReach {
		return maxReach, nil
	}
	return w, nil
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
