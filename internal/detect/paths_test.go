package detect

import (
	"strings"
	"testing"
)

// Each curated path is found as its kind, in any case, and paths no entry
// names are not.
func TestEntries(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.pattern] {
			t.Errorf("pattern %q is listed twice", e.pattern)
		}
		seen[e.pattern] = true
		if _, ok := kindNames[e.kind]; !ok {
			t.Errorf("%s: kind %q has no name", e.pattern, e.kind)
		}
		for _, p := range []string{e.example, strings.ToUpper(e.example), "./" + e.example} {
			if got := kindOf(p); got != e.kind {
				t.Errorf("kindOf(%q) = %q; want %q (entry %s)", p, got, e.kind, e.pattern)
			}
		}
	}
	for _, p := range []string{"main.go", "src/app.py", "docs/readme.md", "go.sum", "web/package-lock.json", "logo.svg",
		"github/workflows/x.yml", "sub/.github/workflows/x.yml", "tests/test_conftest.py", "Makefile.txt", "my-gradlew-notes.md"} {
		if got := kindOf(p); got != "" {
			t.Errorf("kindOf(%q) = %q; want none", p, got)
		}
	}
}

// PathKind is the curated list as others read it: the kind and what it is.
func TestPathKind(t *testing.T) {
	t.Parallel()
	if kind, what := PathKind(".claude/settings.json"); kind != KindAgent || what != kindNames[KindAgent] {
		t.Errorf("PathKind(.claude/settings.json) = %q, %q", kind, what)
	}
	if kind, what := PathKind("main.go"); kind != "" || what != "" {
		t.Errorf("PathKind(main.go) = %q, %q", kind, what)
	}
}
