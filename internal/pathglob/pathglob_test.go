package pathglob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{".github/workflows/**", ".github/workflows/ci.yml", true},
		{".github/workflows/**", ".github/workflows/deep/x.yml", true},
		{".github/workflows/**", ".github/workflows", true},
		{".github/workflows/**", ".github/dependabot.yml", false},
		{".github/workflows/**", "x/.github/workflows/ci.yml", false},
		{"**/*.pem", "key.pem", true},
		{"**/*.pem", "a/b/key.pem", true},
		{"**/*.pem", "a/b/key.pem.txt", false},
		{"*.pem", "a/key.pem", false},
		{"*.pem", "key.pem", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/*/b", "a/x/y/b", false},
		{"go.mod", "go.mod", true},
		{"go.mod", "sub/go.mod", false},
		{"[", "[", false},
	}
	for _, tc := range tests {
		if got := Match(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{".github/workflows/**", "**/*.pem", "a/**/b", "go.mod", "[ab]/c"} {
		if err := Validate(ok); err != nil {
			t.Errorf("Validate(%q) = %v", ok, err)
		}
	}
	bad := map[string]string{
		"":       "empty",
		"/etc":   "starts with '/'",
		"a\\b":   "'\\'",
		"a//b":   "empty, '.' or '..'",
		"../x":   "empty, '.' or '..'",
		"a**":    "whole segment",
		"a/[b/c": "not a valid pattern",
	}
	for p, want := range bad {
		if err := Validate(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%q) = %v, want %q", p, err, want)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("**/*.pem", "a/b.pem")
	f.Add(".github/**", ".github/x")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := Match(pattern, name)
		if Validate(pattern) == nil && !strings.Contains(pattern, "**") && !strings.ContainsAny(pattern, "*?[\\") {
			if got != (pattern == name) {
				t.Errorf("literal pattern %q on %q = %v", pattern, name, got)
			}
		}
	})
}
