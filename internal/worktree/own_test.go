package worktree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// OwnIn names optr's own files relative to the top level however they
// were named: through a symbolic link to the repository, not yet created,
// or outside the repository (left out, as is the top level itself).
func TestOwnIn(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	if err := os.MkdirAll(filepath.Join(top, "ops", "lake"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "repo")
	if err := os.Symlink(top, link); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	got := OwnIn(top, []Own{
		{Path: filepath.Join(link, "ops", "lake", "ledger.jsonl"), What: "ledger"}, // through a link, not created yet
		{Path: filepath.Join(top, "ops", "lake", "new", "deeper"), What: "deeper"}, // two levels not created yet
		{Path: filepath.Join(top, "ops", "lake"), What: "datalake"},
		{Path: filepath.Join(outside, "lake"), What: "outside"},
		{Path: top, What: "the top level"},
		{Path: "", What: "none"},
	})
	want := []Own{{"ops/lake/ledger.jsonl", "ledger"}, {"ops/lake/new/deeper", "deeper"}, {"ops/lake", "datalake"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OwnIn (-want +got):\n%s", diff)
	}
}

// A change touching optr's own files is refused whatever changes.protect
// says (here nothing), naming the file and what it is, and so is a file
// put where a folder holding one must be, in any case; a path that only
// starts with the same letters is not one of them.
func TestAdmitRefusesOptrsOwnFiles(t *testing.T) {
	t.Parallel()
	policy := Policy{Own: []Own{{"ops/ledger.jsonl", "optr's ledger"}, {"ops", "optr's datalake"}, {"tools/optr.yml", "optr's config file"}}}
	for _, tc := range []struct{ path, want string }{
		{"ops/ledger.jsonl", "touches optr's ledger: ops/ledger.jsonl, which no change may touch (changes.protect cannot allow it)"},
		{"ops/workflows/w/runs/r/result.md", "touches optr's datalake ops: ops/workflows/w/runs/r/result.md, which no change may touch (changes.protect cannot allow it)"},
		{"tools/optr.yml", "touches optr's config file: tools/optr.yml, which no change may touch (changes.protect cannot allow it)"},
		{"ops", "touches optr's datalake: ops, which no change may touch (changes.protect cannot allow it)"},
		{"tools", "touches the folder of optr's config file tools/optr.yml: tools, which no change may touch (changes.protect cannot allow it)"},
		{"OPS/Ledger.jsonl", "touches optr's ledger: OPS/Ledger.jsonl, which no change may touch (changes.protect cannot allow it)"},
		{"Tools", "touches the folder of optr's config file tools/optr.yml: Tools, which no change may touch (changes.protect cannot allow it)"},
		{"opsidian/notes.md", ""},
		{"tools/optr.yml.bak", ""},
	} {
		ch := Change{Patch: []byte("diff"), Files: []FileStat{{Path: "main.go", Status: "M"}, {Path: tc.path, Status: "A"}}}
		want := Verdict{Admissible: tc.want == "", Reason: tc.want}
		if diff := cmp.Diff(want, policy.Admit(ch)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, diff)
		}
	}
}
