package secretscan

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// The sets a rule requires hold in every text it matches, and rule out
// texts that lack what it needs.
func TestRequiredSets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		re             string
		matches, lacks []string
	}{
		{`\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,})(?:['"\s;]|$)`, []string{"eyJhbGciOiJIUzI1NiIsI.eyJzdWIiOiIxMjM0NTY3"}, []string{"they keyed eyes on it"}},
		{`(?i)\b(abc_[0-9]{4})x?`, []string{"ABC_1234"}, []string{"abc-1234"}},
		{`(?i)sk-[a-z]+`, []string{"SK-abc", "\u017fk-abc"}, []string{"sk_abc"}}, // (?i)s also matches ſ
		{`x(?:-u|--user)y`, []string{"x-uy", "x--usery"}, []string{"x-y u"}},
		{`curl.{0,9}(?:-u|--user) `, []string{"curl x -u ", "curl --user "}, []string{"curl -s -H u"}},
		{`(?i)(?:kind:.*data:|data:.*kind:)`, []string{"KIND: Secret data:", "data: x kind:"}, []string{"kind: x"}},
		{`(?:foo|bar)baz*`, []string{"fooba", "barbazz"}, []string{"foo"}},
		{`(?:foo|bar)`, []string{"foo", "bar"}, []string{"baz"}},
	} {
		re, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		sets := requiredSets(re.Simplify())
		r := &rule{required: sets}
		for _, m := range c.matches {
			if !regexp.MustCompile(c.re).MatchString(m) {
				t.Fatalf("%s does not match %q: a bad case", c.re, m)
			}
			if !r.mayMatch(m, asciiFold(m)) {
				t.Errorf("%s: sets %v rule out %q, which it matches", c.re, sets, m)
			}
		}
		for _, m := range c.lacks {
			if r.mayMatch(m, asciiFold(m)) {
				t.Errorf("%s: sets %v let %q through", c.re, sets, m)
			}
		}
	}
	// What needs nothing requires nothing.
	for _, expr := range []string{`(ab)?c{0,3}`, `a|b?`} {
		re, _ := syntax.Parse(expr, syntax.Perl)
		if sets := requiredSets(re.Simplify()); len(sets) != 0 {
			t.Errorf("%s requires %v", expr, sets)
		}
	}
}

// Every rule's required literals are in every match it makes: a window
// skipped for lacking one could not have held a match.
func TestRequiredLiteralsAreInMatches(t *testing.T) {
	t.Parallel()
	s := rules()
	texts := []string{
		tokentest.GitHubPAT(1), tokentest.NPMToken(2), tokentest.AWSKeyID(3), tokentest.PrivateKey(4),
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c\n",
		"xoxb-" + tokentest.Random(5, 12, "0123456789") + "-" + tokentest.Random(6, 12, "0123456789") + "-" + tokentest.Random(7, 24, tokentest.Alnum) + "\n",
	}
	ran := 0
	for _, r := range s.rules {
		if r.pathOnly || s.shape(r) != nil {
			continue
		}
		re := regexp.MustCompile(s.file.Rules[r.index].Regex)
		for _, text := range texts {
			for _, m := range re.FindAllString(text, -1) {
				ran++
				if !r.mayMatch(m, true) {
					t.Errorf("rule %s matched %q, which lacks one of %v", r.id, m, r.required)
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no rule matched any text")
	}
}

func TestContainsFold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, word string
		want       bool
	}{
		{"a JWT: .EY", ".ey", true}, {"abc", "abcd", false}, {"xAbC", "abc", true}, {"", "", true}, {"ab", "b", true}, {"ab c", "bc", false},
	} {
		if got := containsFold(c.text, c.word); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", c.text, c.word, got, c.want)
		}
	}
	if strings.Contains("x", "") != containsFold("x", "") {
		t.Error("an empty word is in every text")
	}
}

func TestMinWidth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		re   string
		want int
	}{
		{`\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)`, 26},
		{`SK[0-9a-fA-F]{32}`, 34},
		{`(?i)k+x?y*`, 1},
		{`^$`, 0},
		{`(ab|c)d{2,}`, 3},
	} {
		re, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := minWidth(re.Simplify()); got != c.want {
			t.Errorf("minWidth(%s) = %d, want %d", c.re, got, c.want)
		}
	}
}

// randomMatch writes a random string of re's language (assertions aside:
// the caller keeps only what matches).
func randomMatch(re *syntax.Regexp, rng *rand.Rand, b *strings.Builder) {
	count := func(lo, hi int) int {
		if hi < 0 || hi > lo+4 {
			hi = lo + 4
		}
		return lo + rng.IntN(hi-lo+1)
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		i := 2 * rng.IntN(len(re.Rune)/2)
		lo, hi := re.Rune[i], re.Rune[i+1]
		b.WriteRune(lo + rune(rng.IntN(int(min(hi-lo, 94))+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + rng.IntN(26)))
	case syntax.OpCapture:
		randomMatch(re.Sub[0], rng, b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		for range count(lo, hi) {
			randomMatch(re.Sub[0], rng, b)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			randomMatch(sub, rng, b)
		}
	case syntax.OpAlternate:
		randomMatch(re.Sub[rng.IntN(len(re.Sub))], rng, b)
	}
}

// The anchors and the required sets lose nothing: for random matches of
// every rule's expression, amid other text, the rule searches a window
// that holds the match, and the window passes its required sets.
func TestWindowsKeepMatches(t *testing.T) {
	t.Parallel()
	s := rules()
	rng := rand.New(rand.NewPCG(1, 2))
	checked, anchored := 0, 0
	for _, r := range s.rules {
		if r.pathOnly || !r.keywords {
			continue
		}
		cr, err := s.compile(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.anchor != "" {
			anchored++
		}
		re, _ := syntax.Parse(s.file.Rules[r.index].Regex, syntax.Perl)
		for range 40 {
			var b strings.Builder
			randomMatch(re, rng, &b)
			sample := b.String()
			text := "the first line\nsome words " + sample + " and more\n"
			loc := cr.regex.FindStringSubmatchIndex(text)
			if loc == nil || loc[1]-loc[0] > r.reach || !slices.ContainsFunc(s.file.Rules[r.index].Keywords, func(k string) bool { return containsFold(text[loc[0]:loc[1]], strings.ToLower(k)) }) {
				continue // not a match a keyword could find
			}
			if !r.multiline && strings.Contains(strings.TrimSuffix(text[loc[0]:loc[1]], "\n"), "\n") {
				continue // such a rule is looked for on its keyword's line (Find)
			}
			want, ok := s.accept(cr, nil, r.id, text, 0, loc, "")
			if !ok {
				continue // refused for its entropy or by the rule's allowlist
			}
			checked++
			_, windows, _ := s.windows(text, All, asciiFold(text), nil)
			if !slices.ContainsFunc(windows[r], func(w window) bool {
				if !r.mayMatch(text[w.from:w.to], asciiFold(text)) {
					return false
				}
				for _, l := range cr.regex.FindAllStringSubmatchIndex(text[w.from:w.to], -1) {
					if got, ok := s.accept(cr, nil, r.id, text, w.from, l, ""); ok && got == want {
						return true
					}
				}
				return false
			}) {
				t.Errorf("rule %s: no window searched finds the secret %q of %q (windows %v)", r.id, text[want.Start:want.End], text[loc[0]:loc[1]], windows[r])
			}
		}
	}
	if checked < 1000 || anchored < 50 {
		t.Errorf("checked %d matches, %d rules anchored: the test does not reach the filters", checked, anchored)
	}
	t.Logf("%d matches of %d rules, %d rules anchored", checked, len(s.rules), anchored)
}
