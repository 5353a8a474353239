package secretscan

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A rule's expression is run only within its keyword windows, but a
// window is often a whole line holding a common keyword ("ey" in "key"
// and "they", "sk" in "ask"), and the expression is then tried at every
// byte of it. Most expressions need more than the keyword: a JWT needs
// ".ey" after it, a token a fixed suffix. requiredLiterals lists such
// strings; a window that lacks one cannot hold a match (every match lies
// inside the window and holds them all), so its expression is not run.
// Likewise a window shorter than the shortest match ("tasks." for a
// Vault token's "s." and 24 more characters) is not searched. These are
// necessary conditions only: nothing a rule finds is lost.

// literal is a string every match of an expression holds: exactly, or
// ASCII case-insensitively (fold; s is then lower-case).
type literal struct {
	s    string
	fold bool
}

// requiredLiterals returns strings every match of re holds.
func requiredLiterals(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		if l, ok := literalOf(re); ok {
			return []literal{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []literal
		for _, sub := range re.Sub {
			out = append(out, requiredLiterals(sub)...)
		}
		return out
	}
	return nil
}

// literalOf turns a literal node into a literal, when it is ASCII. A
// case-folded literal with a k or an s is left out: (?i)k also matches
// the Kelvin sign, and (?i)s the long s, which an ASCII comparison would
// not see.
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
	if strings.ContainsAny(s, "ks") {
		return literal{}, false
	}
	return literal{s: s, fold: true}, true
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
// and holds every literal its matches need.
func (r *rule) mayMatch(text string) bool {
	if len(text) < r.minWidth {
		return false
	}
	for _, l := range r.required {
		if l.fold && !containsFold(text, l.s) || !l.fold && !strings.Contains(text, l.s) {
			return false
		}
	}
	return true
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
