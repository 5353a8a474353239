package secretscan

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

func TestRequiredLiterals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		re   string
		want []literal
	}{
		{`\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,})(?:['"\s;]|$)`, []literal{{s: "ey"}, {s: ".ey"}}},
		{`(?i)\b(abc_[0-9]{4})x?`, []literal{{s: "abc_", fold: true}}},
		{`(?i)sk-[a-z]+`, nil},                    // (?i)s also matches ſ: not ASCII
		{`(?:foo|bar)baz*`, []literal{{s: "ba"}}}, // only what every match holds
		{`(ab)?c{0,3}`, nil},
	} {
		re, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, requiredLiterals(re.Simplify()), cmp.AllowUnexported(literal{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.re, diff)
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
		re := regexp.MustCompile(s.vc.Rules[r.index].Regex)
		for _, text := range texts {
			for _, m := range re.FindAllString(text, -1) {
				ran++
				if !r.mayMatch(m) {
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
