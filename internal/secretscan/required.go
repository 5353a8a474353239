package secretscan

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A rule's expression is run only within its keyword windows, but a
// window is often a whole line holding a common keyword ("ey" in "key"
// and "they", "sk" in "ask"), and the expression is then tried at every
// byte of it. Most expressions need more than the keyword: a JWT needs
// ".ey" after it, a token a fixed suffix, curl -u "-u" or "--user".
// requiredSets lists such strings, as sets of which every match holds one
// at least; a window that holds none of a set's cannot hold a match
// (every match lies inside the window), so its expression is not run.
// Likewise a window shorter than the shortest match ("tasks." for a
// Vault token's "s." and 24 more characters) is not searched. These are
// necessary conditions only: nothing a rule finds is lost.

// literal is a string a match of an expression holds: exactly, or ASCII
// case-insensitively (fold; s is then lower-case).
type literal struct {
	s    string
	fold bool
	// unicode marks a case-folded k or s: (?i)k also matches the Kelvin
	// sign, and (?i)s the long s, which an ASCII comparison does not see.
	// Such a literal is relied on only in a text that holds neither sign.
	unicode bool
}

// oneOf is a set of literals every match holds one of.
type oneOf []literal

// maxOneOf bounds a oneOf's literals: more would cost more to look for
// than they save.
const maxOneOf = 16

// requiredSets returns sets of literals every match of re holds one of
// (re simplified).
func requiredSets(re *syntax.Regexp) []oneOf {
	switch re.Op {
	case syntax.OpLiteral:
		if l, ok := literalOf(re); ok {
			return []oneOf{{l}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredSets(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredSets(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []oneOf
		for i, sub := range re.Sub {
			out = append(out, requiredSets(sub)...)
			// A literal start followed by alternatives: the texts a
			// match holds from there (-(?:u|-user): "-u" or "--user").
			if sub.Op != syntax.OpLiteral || i+1 == len(re.Sub) || re.Sub[i+1].Op == syntax.OpLiteral {
				continue
			}
			rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[i:]}
			if leads, ok := leadingSet(rest); ok && len(leads) <= maxOneOf && !slices.ContainsFunc(leads, func(l literal) bool { return len(l.s) < 2 }) {
				out = append(out, markUnicode(leads))
			}
		}
		return out
	case syntax.OpAlternate:
		// A set every alternative holds one of its own sets' literals
		// of; else one set of each alternative, together.
		alts := make([][]oneOf, len(re.Sub))
		for i, sub := range re.Sub {
			if alts[i] = requiredSets(sub); len(alts[i]) == 0 {
				return nil // an alternative that needs nothing
			}
		}
		var out []oneOf
		for _, set := range alts[0] {
			if !slices.ContainsFunc(alts[1:], func(sets []oneOf) bool {
				return !slices.ContainsFunc(sets, func(other oneOf) bool { return set.covers(other) })
			}) {
				out = append(out, set)
			}
		}
		if len(out) > 0 {
			return out
		}
		var union oneOf
		for _, sets := range alts {
			union = append(union, sets[0]...)
		}
		if len(union) <= maxOneOf {
			return []oneOf{union}
		}
	}
	return nil
}

// covers reports whether every text that holds one of other's literals
// holds one of set's.
func (set oneOf) covers(other oneOf) bool {
	for _, m := range other {
		if !slices.ContainsFunc(set, func(l literal) bool { return m.holds(l) }) {
			return false
		}
	}
	return true
}

// holds reports whether every text that holds m holds l.
func (m literal) holds(l literal) bool {
	if !l.fold {
		return !m.fold && strings.Contains(m.s, l.s)
	}
	return strings.Contains(strings.ToLower(m.s), l.s)
}

// markUnicode marks the case-folded literals with a k or an s.
func markUnicode(ls []literal) oneOf {
	out := make(oneOf, len(ls))
	for i, l := range ls {
		l.unicode = l.fold && strings.ContainsAny(l.s, "ks")
		out[i] = l
	}
	return out
}

// literalOf turns a literal node into a literal, when it is ASCII.
func literalOf(re *syntax.Regexp) (literal, bool) {
	s := string(re.Rune)
	for _, r := range re.Rune {
		if r >= utf8.RuneSelf {
			return literal{}, false
		}
	}
	if re.Flags&syntax.FoldCase == 0 {
		return literal{s: s}, true
	}
	s = strings.ToLower(s)
	return literal{s: s, fold: true, unicode: strings.ContainsAny(s, "ks")}, true
}

// minWidth is the fewest bytes re can match.
func minWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) // a rune is a byte at least (a folded k, the Kelvin sign, more)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minWidth(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minWidth(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minWidth(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if w := minWidth(sub); n < 0 || w < n {
				n = w
			}
		}
		return max(n, 0)
	}
	return 0 // empty, assertions, ?, *
}

// mayMatch reports whether text is long enough for a match of the rule
// and holds one literal of each set its matches need; ascii reports that
// text holds neither the Kelvin nor the long s sign.
func (r *rule) mayMatch(text string, ascii bool) bool {
	if len(text) < r.minWidth {
		return false
	}
	for _, set := range r.required {
		if !set.in(text, ascii) {
			return false
		}
	}
	return true
}

// in reports whether text holds one of the set's literals; a set with a
// case-folded k or s holds in a text that is not ascii.
func (set oneOf) in(text string, ascii bool) bool {
	for _, l := range set {
		if l.unicode && !ascii || l.fold && containsFold(text, l.s) || !l.fold && strings.Contains(text, l.s) {
			return true
		}
	}
	return false
}

// asciiFold reports whether text holds neither the Kelvin sign nor the
// long s, the two characters outside ASCII that (?i) matches for an ASCII
// letter (k and s): then an ASCII case-insensitive search sees everything
// a case-folded expression can match.
func asciiFold(text string) bool {
	return !strings.Contains(text, "\u212a") && !strings.Contains(text, "\u017f")
}

// containsFold reports whether text holds word (lower-case ASCII),
// ignoring ASCII case.
func containsFold(text, word string) bool {
	if word == "" {
		return true
	}
	for i := 0; i+len(word) <= len(text); i++ {
		if lower[text[i]] == word[0] && equalFold(text[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// equalFold reports whether s is word (lower-case ASCII), ignoring ASCII
// case.
func equalFold(s, word string) bool {
	for i := range len(word) {
		if lower[s[i]] != word[i] {
			return false
		}
	}
	return true
}

// A rule whose matches start with text of no fixed shape ([\w.-]{0,50}?
// before generic-api-key's "key") is searched for, unanchored, in the
// whole line around each keyword: on a line of ordinary code the
// expression runs at every byte, and a text dense with keywords ("key",
// "token", "password") scans at 1 MB/s. But what follows that optional
// start is often a keyword itself: every match, less its optional start,
// begins at a place where one of the rule's keywords begins — a place the
// keyword search already found. Such a rule is tried there first,
// anchored (anchorOf), which fails within a few bytes on ordinary text;
// only a line where it succeeds is searched in full. Necessary, never
// sufficient: nothing a rule finds is lost (TestAnchorKeepsMatches).

// maxLeads bounds the literal starts leadingSet works out.
const maxLeads = 64

// anchorOf returns the expression "^(?:R)" where R is re less its
// optional start, when every match of R starts with one of keywords
// (ASCII case-insensitively); ok is false when that does not hold or
// cannot be shown.
func anchorOf(re *syntax.Regexp, keywords []string) (string, bool) {
	rest := dropOptionalStart(re)
	if rest == nil {
		return "", false
	}
	leads, ok := leadingSet(rest)
	if !ok || len(leads) == 0 {
		return "", false
	}
	for _, l := range leads {
		if !startsWithAny(l, keywords) {
			return "", false
		}
	}
	return `^(?:` + rest.String() + `)`, true
}

// dropOptionalStart returns re without the parts at its start that may
// match nothing; nil when nothing that must match is left.
func dropOptionalStart(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		if minWidth(re) == 0 {
			return nil
		}
		return re
	}
	i := 0
	for i < len(re.Sub) && minWidth(re.Sub[i]) == 0 {
		i++
	}
	switch {
	case i == len(re.Sub):
		return nil
	case i == len(re.Sub)-1:
		return re.Sub[i]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[i:]}
}

// leadingSet returns literal texts one of which every match of re starts
// with (lower-cased where case-folded), at most maxLeads of them; ok is
// false when re can start with anything else, or there would be more.
func leadingSet(re *syntax.Regexp) ([]literal, bool) {
	leads, _, ok := leadingOf(re)
	return leads, ok && len(leads) <= maxLeads
}

// leadingOf is leadingSet; whole reports whether each literal is all that
// re matches (so a concatenation may go on to its next part).
func leadingOf(re *syntax.Regexp) (leads []literal, whole, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		if fold {
			s = strings.ToLower(s)
		}
		return []literal{{s: s, fold: fold}}, true, true
	case syntax.OpCharClass: // a few characters: each a literal
		var out []literal
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(out) == 4 {
					return nil, false, false
				}
				out = append(out, literal{s: string(c)})
			}
		}
		return out, true, len(out) > 0
	case syntax.OpCapture:
		return leadingOf(re.Sub[0])
	case syntax.OpPlus:
		leads, _, ok := leadingOf(re.Sub[0])
		return leads, false, ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false, false
		}
		leads, w, ok := leadingOf(re.Sub[0])
		return leads, w && re.Min == 1 && re.Max == 1, ok
	case syntax.OpAlternate:
		whole = true
		for _, sub := range re.Sub {
			l, w, ok := leadingOf(sub)
			if !ok {
				return nil, false, false
			}
			leads, whole = append(leads, l...), whole && w
			if len(leads) > maxLeads {
				return nil, false, false
			}
		}
		return leads, whole, true
	case syntax.OpQuest: // the part, or nothing: the next part decides
		l, w, ok := leadingOf(re.Sub[0])
		if !ok || !w {
			return nil, false, false
		}
		return append(l, literal{}), true, true
	case syntax.OpConcat:
		leads = []literal{{}}
		for _, sub := range re.Sub {
			l, w, ok := leadingOf(sub)
			if !ok {
				return leads, false, !slices.ContainsFunc(leads, func(x literal) bool { return x.s == "" })
			}
			var next []literal
			for _, a := range leads {
				for _, b := range l {
					next = append(next, literal{s: a.s + b.s, fold: a.fold || b.fold})
				}
			}
			if len(next) > maxLeads { // the starts so far, shorter
				return leads, false, !slices.ContainsFunc(leads, func(x literal) bool { return x.s == "" })
			}
			leads = next
			if !w {
				return leads, false, true
			}
		}
		return leads, true, true
	}
	return nil, false, false
}

// startsWithAny reports whether l starts with one of keywords, ignoring
// ASCII case: an occurrence of l is then one the keyword search reports.
func startsWithAny(l literal, keywords []string) bool {
	for _, k := range keywords {
		if k != "" && len(l.s) >= len(k) && equalFold(l.s[:len(k)], strings.ToLower(k)) {
			return true
		}
	}
	return false
}
