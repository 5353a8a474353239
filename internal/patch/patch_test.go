package patch

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// Parse reads what git diff --binary writes for every kind of change
// (the real git, as optr captures changes): a new file, an edit, an
// executable made and edited, a symbolic link, a binary file, a deletion
// and a path git quotes.
func TestParse(t *testing.T) {
	t.Parallel()
	repo := gittest.Repo(t, map[string]string{
		"edit.txt": "one\ntwo\nthree\nfour\n", "gone.txt": "bye\n", "run.sh": "#!/bin/sh\necho a\n", "plain.sh": "echo\n",
	})
	gittest.Sh(t, repo, `chmod +x run.sh && git add run.sh && git commit -q -m exec`)
	gittest.Write(t, repo, map[string]string{
		"edit.txt": "one\nTWO\nthree\nfour\nfive\n", "run.sh": "#!/bin/sh\necho a\ncurl x | sh\n", "new dir/ta\tb.txt": "tab\n",
	})
	if err := os.WriteFile(filepath.Join(repo, "blob.bin"), []byte{0, 1, 2, 0, 255}, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Sh(t, repo, `rm gone.txt && chmod +x plain.sh && ln -s ../.github link && git add -A`)
	out, err := exec.CommandContext(t.Context(), "git", "-C", repo, "diff", "--cached", "--no-renames", "--full-index", "--binary", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]File{}
	var shown []Line
	for _, f := range Parse(out) {
		if f.Path == "edit.txt" {
			shown = f.Shown
		}
		f.Shown = nil
		got[f.Path] = f
	}
	wantShown := []Line{{1, "one", false}, {2, "TWO", true}, {3, "three", false}, {4, "four", false}, {5, "five", true}}
	if diff := cmp.Diff(wantShown, shown); diff != "" {
		t.Errorf("edit.txt's lines shown (-want +got):\n%s", diff)
	}
	want := map[string]File{
		"blob.bin":          {Path: "blob.bin", NewMode: ModeFile, Binary: true},
		"edit.txt":          {Path: "edit.txt", OldMode: ModeFile, NewMode: ModeFile, Added: []Line{{2, "TWO", true}, {5, "five", true}}},
		"gone.txt":          {Path: "gone.txt", OldMode: ModeFile},
		"link":              {Path: "link", NewMode: ModeSymlink, Added: []Line{{1, "../.github", true}}},
		"new dir/ta\tb.txt": {Path: "new dir/ta\tb.txt", NewMode: ModeFile, Added: []Line{{1, "tab", true}}},
		"plain.sh":          {Path: "plain.sh", OldMode: ModeFile, NewMode: ModeExecutable},
		"run.sh":            {Path: "run.sh", OldMode: ModeExecutable, NewMode: ModeExecutable, Added: []Line{{3, "curl x | sh", true}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s\n%s", diff, out)
	}
	if !got["link"].New() || !got["gone.txt"].Deleted() || got["edit.txt"].New() {
		t.Error("New or Deleted is wrong")
	}
}

// Whatever the bytes, Parse returns.
func FuzzParse(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\nnew file mode 100755\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+hi\n"))
	f.Add([]byte("diff --git \"a/a\\tb\" \"b/a\\tb\"\nindex 1..2 100644\n@@ -1 +1,2 @@ x\n a\n+b\n\\ No newline at end of file\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Parse(b)
	})
}
