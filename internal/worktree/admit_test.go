package worktree

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
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
		{"empty", Change{Files: []FileStat{}}, Verdict{Reason: "the agent changed no file (empty patch)"}},
		{"workflow", files("main.go", ".github/workflows/ci.yml"), Verdict{Reason: `the change touches .github/workflows/ci.yml, protected by ".github/workflows/**" (changes.protect)`}},
		{"datalake", files(".optr/ledger.jsonl"), Verdict{Reason: `the change touches .optr/ledger.jsonl, protected by ".optr/**" (changes.protect)`}},
		{"key at depth", files("a/b/c/key.pem"), Verdict{Reason: `the change touches a/b/c/key.pem, protected by "**/*.pem" (changes.protect)`}},
		{"too many", files("a", "b", "c", "d"), Verdict{Reason: "the change touches 4 files, more than changes.max-files (3)"}},
		{"refused", Change{Refused: "x is a symlink", Files: []FileStat{}}, Verdict{Reason: "the change was refused: x is a symlink"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, policy.Admit(tc.ch)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := (Policy{}).Admit(files(".github/workflows/ci.yml")); !got.Admissible {
		t.Errorf("without protect globs, %+v", got)
	}
	want := check.Verdict{Constraint: VerdictName, Hard: true, Status: check.Failed, Reason: "no"}
	if diff := cmp.Diff(want, Verdict{Reason: "no"}.Check()); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}
