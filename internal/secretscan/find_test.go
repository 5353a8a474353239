package secretscan

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// Every rule compiles with gitleaks' loader, one at a time as Find
// compiles them, and so do the global allowlists.
func TestEveryRuleCompiles(t *testing.T) {
	t.Parallel()
	s := rules()
	for _, r := range s.rules {
		if !r.pathOnly {
			if err := s.shape(r); err != nil {
				t.Errorf("%s: %v", r.id, err)
			}
		}
		cr, err := s.compile(r)
		if err != nil {
			t.Errorf("%s: %v", r.id, err)
			continue
		}
		if cr.regex == nil && cr.path == nil {
			t.Errorf("%s compiled to a rule with neither regex nor path", r.id)
		}
	}
	if g, err := s.allowlists(); err != nil || len(g) == 0 {
		t.Errorf("global allowlists: %d, %v", len(g), err)
	}
}

func TestFindTokens(t *testing.T) {
	t.Parallel()
	pat, npm, aws, key := tokentest.GitHubPAT(1), tokentest.NPMToken(2), tokentest.AWSKeyID(3), tokentest.PrivateKey(4)
	text := "deploy with " + pat + " then\nexport NPM_TOKEN=" + npm + "\naws_access_key_id = " + aws + "\n\n" + key + "\nthe end\n"
	got := map[string]string{}
	for _, m := range Find(text, "", Tokens) {
		got[m.Rule] = text[m.Start:m.End]
	}
	want := map[string]string{"github-pat": pat, "npm-access-token": npm, "aws-access-token": aws, "private-key": key}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
	// A heuristic (an assignment with entropy) is detection's, not
	// redaction's.
	assign := `db_password = "` + tokentest.Random(5, 24, tokentest.Alnum) + `"`
	if ms := Find(assign, "", Tokens); len(ms) != 0 {
		t.Errorf("Tokens found %v in an assignment; only All applies the generic heuristic", ms)
	}
	if ms := Find(assign, "", All); len(ms) != 1 || ms[0].Rule != "generic-api-key" {
		t.Errorf("All found %v, want generic-api-key", ms)
	}
	// gitleaks:allow allows nothing: an agent could write it.
	if ms := Find(pat+" # gitleaks:allow", "", Tokens); len(ms) != 1 {
		t.Errorf("a gitleaks:allow comment hid a token: %v", ms)
	}
	// Allowlists apply: a token of one repeated character has too little
	// entropy, and gitleaks' stop words allow AWS's documentation key.
	if ms := Find("ghp_"+strings.Repeat("a", 36)+" AKIAIOSFODNN7EXAMPLE", "", Tokens); len(ms) != 0 {
		t.Errorf("found %v in text gitleaks allows", ms)
	}
}

// Find agrees with gitleaks' own detector on what is a secret, rule by
// rule, over texts that hold tokens among ordinary code and prose.
func TestFindAgreesWithGitleaks(t *testing.T) {
	t.Parallel()
	d := detectorOf(t)
	texts := []string{
		"token: " + tokentest.GitHubPAT(10) + "\nand " + tokentest.NPMToken(11) + " in one line " + tokentest.AWSKeyID(12) + "\n",
		tokentest.PrivateKey(13),
		`const apiKey = "` + tokentest.Random(14, 32, tokentest.Alnum) + `" // the service key` + "\nfunc main() {}\n",
		"ordinary prose without any secret, about keys and tokens and secrets.\n",
		"curl -H 'Authorization: Bearer " + tokentest.Random(15, 40, tokentest.Alnum) + "' https://example.com\n",
		"xoxb-" + tokentest.Random(16, 12, "0123456789") + "-" + tokentest.Random(17, 12, "0123456789") + "-" + tokentest.Random(18, 24, tokentest.Alnum) + "\n",
		"password = \"" + tokentest.Random(19, 20, tokentest.Alnum) + "\"\nkey_id = \"" + tokentest.Random(20, 20, tokentest.Alnum) + "\"\n",
	}
	for i, text := range texts {
		var want, got []string
		for _, f := range d.DetectString(text) {
			want = append(want, f.RuleID+" "+f.Secret)
		}
		for _, m := range Find(text, "", All) {
			got = append(got, m.Rule+" "+text[m.Start:m.End])
		}
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("text %d (-gitleaks +Find):\n%s", i, diff)
		}
	}
}

func TestPathRules(t *testing.T) {
	t.Parallel()
	if got := PathRules("certs/signing.p12"); !slices.Contains(got, "pkcs12-file") {
		t.Errorf("PathRules(.p12) = %v, want pkcs12-file", got)
	}
	if got := PathRules("main.go"); len(got) != 0 {
		t.Errorf("PathRules(main.go) = %v", got)
	}
}

func TestMaxWidth(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]int{
		`ghp_[0-9a-zA-Z]{36}`:                   40,
		`\b(npm_[a-z0-9]{36})(?:[\x60'"\s;]|$)`: 41,
		`(?i)k`:                                 3, // K, k and the Kelvin sign (3 bytes in UTF-8)
		`a+`:                                    maxReach,
		`é{2}`:                                  4,
		`a|bcd`:                                 3,
	} {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := maxWidth(re); got != want {
			t.Errorf("maxWidth(%s) = %d; want %d", expr, got, want)
		}
	}
}

// Windows: a match is found wherever its keyword falls in a long text,
// and not found when the keyword is too far from the token.
func TestFindInLongText(t *testing.T) {
	t.Parallel()
	pat := tokentest.GitHubPAT(20)
	filler := strings.Repeat("nothing to see here, move along.\n", 3000)
	for _, text := range []string{filler + pat, pat + filler, filler + pat + filler} {
		ms := Find(text, "", Tokens)
		if len(ms) != 1 || text[ms[0].Start:ms[0].End] != pat {
			t.Errorf("len %d: found %v", len(text), ms)
		}
	}
}

func Example() {
	text := "export NPM_TOKEN=" + tokentest.NPMToken(1)
	for _, m := range Find(text, "", Tokens) {
		fmt.Println(m.Rule, m.Start, m.End-m.Start)
	}
	// Output: npm-access-token 17 40
}

// BenchmarkLoad is what the first redaction of a process pays to decode
// the rule set (the rules it then needs compile one by one).
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := load(gitleaksJSON); err != nil {
			b.Fatal(err)
		}
	}
}
