package config

import (
	"regexp"
	"testing"
)

// TestCompilePattern: a pattern is compiled once however often it is
// asked for, and a bad one gets regexp's own error.
func TestCompilePattern(t *testing.T) {
	t.Parallel()
	const expr = `^compile-pattern-(\d+)$`
	first, err := CompilePattern(expr)
	if err != nil {
		t.Fatal(err)
	}
	second, err := CompilePattern(expr)
	if err != nil || second != first {
		t.Errorf("CompilePattern compiled %q again (%p, then %p; err %v)", expr, first, second, err)
	}
	if !first.MatchString("compile-pattern-42") {
		t.Errorf("%s does not match what it should", first)
	}
	for _, bad := range []string{`(?<=x)y`, `(`} {
		_, want := regexp.Compile(bad)
		if _, err := CompilePattern(bad); err == nil || err.Error() != want.Error() {
			t.Errorf("CompilePattern(%q): error %v, want %v", bad, err, want)
		}
	}
}
