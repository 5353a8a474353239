package secretscan

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// allowlist is one of gitleaks' allowlists, compiled as its loader
// compiles one (config.Allowlist after Validate): the paths and the
// regexes each joined into one expression, the stop words lower-cased in
// an Aho-Corasick trie (the library gitleaks uses for them).
type allowlist struct {
	and     bool   // every check the list has must hold, else any one
	commits bool   // the list names commits (optr's findings have none)
	target  string // what regexes match: "" the secret, "match", "line"
	paths   *regexp.Regexp
	regexes *regexp.Regexp
	stops   *ahocorasick.Trie
	// fixed lists the regexes written with a misplaced anchor that the
	// loader corrected (anchorAlternation), as written.
	fixed []string
}

// compileAllowlist compiles a, which checkRuleFile accepted.
func compileAllowlist(a *fileAllowlist) (*allowlist, error) {
	and, err := conditionOf(a.Condition)
	if err != nil {
		return nil, err
	}
	target, err := targetOf(a.RegexTarget)
	if err != nil {
		return nil, err
	}
	l := &allowlist{and: and, commits: len(a.Commits) > 0, target: target}
	if l.paths, err = joinOr(a.Paths); err != nil {
		return nil, fmt.Errorf("paths: %w", err)
	}
	regexes := make([]string, len(a.Regexes))
	for i, re := range a.Regexes {
		regexes[i] = anchorAlternation(re)
		if regexes[i] != re {
			l.fixed = append(l.fixed, re)
		}
	}
	if l.regexes, err = joinOr(regexes); err != nil {
		return nil, fmt.Errorf("regexes: %w", err)
	}
	if len(a.StopWords) > 0 {
		words := make([]string, 0, len(a.StopWords))
		for _, w := range a.StopWords {
			if w = strings.ToLower(w); !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		l.stops = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	}
	return l, nil
}

// joinOr compiles patterns as one expression that matches where any of
// them does, "(?:a|b|…)", as gitleaks' joinRegexOr does (after compiling
// each alone, as its loader does first); nil for none.
func joinOr(patterns []string) (*regexp.Regexp, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	for _, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, err
		}
	}
	return regexp.Compile("(?:" + strings.Join(patterns, "|") + ")")
}

// allows reports whether the allowlist allows a finding, as gitleaks'
// detector decides (its checkFindingAllowed): with OR a matching regex or
// stop word allows it; with AND every check the list has must hold, and
// optr's findings have no commit. line is called only when the regexes
// target the line.
func (l *allowlist) allows(secret, match string, line func() string, path string) bool {
	stop := l.stopWord(secret)
	if !l.and && stop {
		return true
	}
	target := secret
	switch l.target {
	case "match":
		target = match
	case "line":
		target = line()
	}
	regex := l.regexes != nil && target != "" && l.regexes.MatchString(target)
	if !l.and {
		return regex
	}
	ok := !l.commits
	if l.paths != nil {
		ok = ok && l.pathAllowed(path)
	}
	if l.regexes != nil {
		ok = ok && regex
	}
	if l.stops != nil {
		ok = ok && stop
	}
	return ok
}

// stopWord reports whether s holds one of the stop words, ignoring case.
func (l *allowlist) stopWord(s string) bool {
	return l.stops != nil && s != "" && l.stops.MatchFirstString(strings.ToLower(s)) != nil
}

// pathAllowed reports whether the list's paths match path.
func (l *allowlist) pathAllowed(path string) bool {
	return l.paths != nil && path != "" && l.paths.MatchString(path)
}

// anchorAlternation corrects an expression that anchors only the first
// alternative at the start and the last at the end, "^a|b|c$": as written
// it means (^a)|(b)|(c$), which matches b anywhere; its author meant
// ^(?:a|b|c)$. gitleaks' global allowlist has one, (?i)^true|false|null$,
// which allows every secret that holds "false" — one GitHub token in
// about a million, which gitleaks and optr's redaction would then pass in
// clear. The loader reads it as meant: rules stay unmodified, and no other
// expression is touched (TestAnchorAlternation lists what is).
func anchorAlternation(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpAlternate || len(re.Sub) < 3 {
		return expr
	}
	first, last := re.Sub[0], re.Sub[len(re.Sub)-1]
	if !startsAnchored(first) || !endsAnchored(last) {
		return expr
	}
	for _, sub := range re.Sub[1 : len(re.Sub)-1] {
		if anchored(sub) {
			return expr // anchors in the middle: not the idiom
		}
	}
	if startsAnchored(last) || endsAnchored(first) {
		return expr // a branch anchored at both ends stands alone
	}
	alts := slices.Clone(re.Sub)
	alts[0] = &syntax.Regexp{Op: syntax.OpConcat, Flags: first.Flags, Sub: first.Sub[1:]}
	alts[len(alts)-1] = &syntax.Regexp{Op: syntax.OpConcat, Flags: last.Flags, Sub: last.Sub[:len(last.Sub)-1]}
	whole := &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
		{Op: first.Sub[0].Op, Flags: first.Sub[0].Flags},
		{Op: syntax.OpAlternate, Flags: re.Flags, Sub: alts},
		{Op: last.Sub[len(last.Sub)-1].Op, Flags: last.Sub[len(last.Sub)-1].Flags},
	}}
	return whole.String()
}

// startsAnchored reports whether re is a concatenation that starts with ^.
func startsAnchored(re *syntax.Regexp) bool {
	return re.Op == syntax.OpConcat && len(re.Sub) > 1 && isBegin(re.Sub[0])
}

// endsAnchored reports whether re is a concatenation that ends with $.
func endsAnchored(re *syntax.Regexp) bool {
	return re.Op == syntax.OpConcat && len(re.Sub) > 1 && isEnd(re.Sub[len(re.Sub)-1])
}

func isBegin(re *syntax.Regexp) bool {
	return re.Op == syntax.OpBeginText || re.Op == syntax.OpBeginLine
}

func isEnd(re *syntax.Regexp) bool {
	return re.Op == syntax.OpEndText || re.Op == syntax.OpEndLine
}

// anchored reports whether re holds ^ or $ anywhere.
func anchored(re *syntax.Regexp) bool {
	if isBegin(re) || isEnd(re) {
		return true
	}
	return slices.ContainsFunc(re.Sub, anchored)
}
