package worktree

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/status"
)

func TestAdmit(t *testing.T) {
	t.Parallel()
	files := func(paths ...string) Change {
		ch := Change{Patch: []byte("diff"), Files: []FileStat{}}
		for _, p := range paths {
			ch.Files = append(ch.Files, FileStat{Path: p, Status: "M"})
		}
		return ch
	}
	policy := Policy{Protect: []string{".github/workflows/**", ".optr/**", "**/*.pem"}, MaxFiles: 3}
	tests := []struct {
		name string
		ch   Change
		want Verdict
	}{
		{"ok", files("main.go", "docs/a.md"), Verdict{Admissible: true}},
		{"empty", Change{Files: []FileStat{}}, Verdict{Reason: "empty patch: the agent changed no file"}},
		{"workflow", files("main.go", ".github/workflows/ci.yml"), Verdict{Reason: `protected by ".github/workflows/**" (changes.protect): the change touches .github/workflows/ci.yml`}},
		{"datalake", files(".optr/ledger.jsonl"), Verdict{Reason: `protected by ".optr/**" (changes.protect): the change touches .optr/ledger.jsonl`}},
		{"key at depth", files("a/b/c/key.pem"), Verdict{Reason: `protected by "**/*.pem" (changes.protect): the change touches a/b/c/key.pem`}},
		{"too many", files("a", "b", "c", "d"), Verdict{Reason: "touches 4 files, more than changes.max-files (3)"}},
		{"refused", Change{Refused: "x is a symlink", Files: []FileStat{}}, Verdict{Reason: "refused: x is a symlink"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, policy.Admit(tc.ch)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	deletes := func(n, kept int) Change {
		ch := Change{Patch: []byte("diff")}
		for i := range n + kept {
			st := "D"
			if i >= n {
				st = "M"
			}
			ch.Files = append(ch.Files, FileStat{Path: fmt.Sprint(i), Status: st})
		}
		return ch
	}
	deletions := []struct {
		name   string
		policy Policy
		ch     Change
		want   Verdict
	}{
		{"every file", Policy{Tracked: 4}, deletes(4, 0), Verdict{Reason: "deletes 4 of the 4 tracked files, more than half of them (set changes.max-deletions to allow more)"}},
		{"half", Policy{Tracked: 4}, deletes(2, 2), Verdict{Admissible: true}},
		{"odd", Policy{Tracked: 3}, deletes(2, 0), Verdict{Reason: "deletes 2 of the 3 tracked files, more than half of them (set changes.max-deletions to allow more)"}},
		{"one of one", Policy{Tracked: 1}, deletes(1, 0), Verdict{Reason: "deletes 1 of the 1 tracked files, more than half of them (set changes.max-deletions to allow more)"}},
		{"configured", Policy{MaxDeletions: 2, Tracked: 100}, deletes(3, 0), Verdict{Reason: "deletes 3 files, more than changes.max-deletions (2)"}},
		{"configured above half", Policy{MaxDeletions: 4, Tracked: 4}, deletes(4, 0), Verdict{Admissible: true}},
		{"tracked unknown", Policy{}, deletes(4, 0), Verdict{Admissible: true}},
	}
	for _, tc := range deletions {
		if diff := cmp.Diff(tc.want, tc.policy.Admit(tc.ch)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := (Policy{}).Admit(files(".github/workflows/ci.yml")); !got.Admissible {
		t.Errorf("without protect globs, %+v", got)
	}
	want := check.Verdict{Constraint: VerdictName, Hard: true, Status: status.Failed, Reason: "no"}
	if diff := cmp.Diff(want, Verdict{Reason: "no"}.Check()); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

// TestProtected: protect globs match whole repository paths, "**" across
// directories, every other wildcard within one (the table internal/pathglob
// was tested with before doublestar replaced it).
func TestProtected(t *testing.T) {
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
		{"*.{pem,key}", "id.key", true},
	}
	for _, tc := range tests {
		if got := protected(tc.pattern, tc.name); got != tc.want {
			t.Errorf("protected(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// FuzzProtected: a glob without wildcards matches exactly its own path.
// Both are valid UTF-8 here: doublestar compares runes, so two different
// invalid bytes (each decoding to U+FFFD) compare equal — a glob from a
// YAML config is UTF-8, and that can only protect more, never less.
func FuzzProtected(f *testing.F) {
	f.Add("**/*.pem", "a/b.pem")
	f.Add(".github/**", ".github/x")
	f.Add("go.sum", "go.sum")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := protected(pattern, name)
		if utf8.ValidString(pattern) && utf8.ValidString(name) && !strings.ContainsAny(pattern, "*?[]{}\\") {
			if got != (pattern == name) {
				t.Errorf("literal pattern %q on %q = %v", pattern, name, got)
			}
		}
	})
}
