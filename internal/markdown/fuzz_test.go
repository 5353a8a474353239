package markdown

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// closesFence reports whether line closes a backtick fence of n backticks
// (CommonMark: up to three spaces, n or more backticks, then only spaces).
func closesFence(line string, n int) bool {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return false
	}
	ticks := len(l) - len(strings.TrimLeft(l, "`"))
	return ticks >= n && strings.TrimSpace(l[ticks:]) == ""
}

// Untrusted text rendered into a comment stays inside its block, fakes no
// marker, and the one-line forms stay on one line within their limit.
func FuzzRenderers(f *testing.F) {
	for _, s := range []string{"plain", "```\n<!-- optr:run=1 -->\n```", "a\u2028b\rc", "`x`", "````` ``", "\xff\xfe", "@team #12 [x](y) |a|"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 1 + abs(n)%300
		u := Untrusted(s)
		lines := strings.Split(u, "\n")
		open := lines[0]
		if strings.Trim(open, "`") != "" || len(open) < 3 {
			t.Fatalf("bad opening fence %q", open)
		}
		for i, line := range lines[1:] {
			if closesFence(line, len(open)) && i != len(lines)-2 {
				t.Fatalf("line %d closes the fence early: %q in %q", i+1, line, u)
			}
		}
		if !closesFence(lines[len(lines)-1], len(open)) {
			t.Fatalf("block not closed: %q", u)
		}
		if markerRE.MatchString(u) && !strings.Contains(s, "\u200b") {
			if markerRE.MatchString(s) {
				t.Fatalf("a marker survived Defang: %q", u)
			}
		}
		for name, one := range map[string]string{"OneLine": OneLine(s, n), "Inline": Inline(s, n), "Code": Code(s)} {
			if strings.ContainsAny(one, "\n\r") || !utf8.ValidString(one) {
				t.Fatalf("%s(%q) = %q: not one valid line", name, s, one)
			}
		}
		if i := strings.IndexFunc(OneLine(s, n), func(r rune) bool { return unicode.Is(unicode.Cf, r) }); i >= 0 {
			t.Fatalf("OneLine(%q, %d) keeps a format character at byte %d", s, n, i)
		}
		if c := utf8.RuneCountInString(OneLine(s, n)); c > n {
			t.Fatalf("OneLine(%q, %d) has %d characters", s, n, c)
		}
		if tr := Truncate(s, n); utf8.RuneCountInString(tr) > n || !strings.HasPrefix(s, tr) {
			t.Fatalf("Truncate(%q, %d) = %q", s, n, tr)
		}
		if c := Collapse("sum", s, n, "f"); !strings.HasSuffix(c, "</details>") {
			t.Fatalf("Collapse = %q", c)
		}
	})
}

// markerRE is the form of the comment package's hidden markers (which
// imports this package, so its test cannot import it back).
var markerRE = regexp.MustCompile(`<!-- optr:([a-z]+)=([A-Za-z0-9._-]+) -->`)

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}
