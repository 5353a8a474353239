package worktree

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/redact"
)

// Each kind of bad input is refused with a reason that names it, and the
// refused change carries no patch.
func TestCaptureRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{"huge file", "head -c 2048 /dev/zero > big.bin", "big.bin is 2048 bytes"},
		{"huge tracked file", "head -c 4096 /dev/zero >> a.txt", "a.txt is 4098 bytes"},
		{"symlink outside by ..", "mkdir d && ln -s ../../../etc/passwd d/link", `d/link is a symlink to "../../../etc/passwd", outside the worktree`},
		{"absolute symlink", "ln -s /etc/passwd link", `link is a symlink to "/etc/passwd", outside the worktree`},
		{"symlink into .git", "ln -s .git/config link", "into .git"},
		{"file under .git", "mkdir -p sub/.git && echo x > sub/.git/config", "sub/.git: files under .git/"},
		{"repository inside a new directory", "mkdir -p new/deep && git init -q new/deep", "new/deep/.git"},
		{"tracked file made a FIFO", "rm a.txt && mkfifo a.txt", "a.txt is not a regular file"},
		{"nested repository", "mkdir sub && cd sub && git init -q && echo x > x && git add x && git commit -qm x", "sub/.git"},
		{"secret in a file", "echo 'token = ghs_secretvalue123' > config.txt", "contains the value of a secret"},
	}
	for _, tc := range tests {
		for _, byGit := range []bool{false, true} {
			name := tc.name
			if byGit {
				name += ", checked out by git"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				repo := newRepo(t, map[string]string{"a.txt": "a\n"})
				tr := add(t, start(t, repo, "run-1"), "agent")
				if byGit {
					tr = addByGit(t, repo)
				}
				sh(t, tr.Dir(), tc.script)
				ch := capture(t, tr, Limits{MaxFileBytes: 1024, Redactor: redact.New("ghs_secretvalue123")})
				if !strings.Contains(ch.Refused, tc.want) {
					t.Errorf("Refused = %q, want it to contain %q", ch.Refused, tc.want)
				}
				if len(ch.Patch) != 0 || len(ch.Files) != 0 {
					t.Errorf("a refused change kept patch %q and files %v", ch.Patch, ch.Files)
				}
				if v := (Policy{}).Admit(ch); v.Admissible || !strings.Contains(v.Reason, tc.want) {
					t.Errorf("Admit = %+v", v)
				}
			})
		}
	}
}

// A symlink that stays inside the worktree is an ordinary change.
func TestCaptureKeepsInnerSymlink(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"docs/a.txt": "a\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), "mkdir -p x/y && ln -s ../../docs/a.txt x/y/link")
	ch := capture(t, tr, Limits{})
	if ch.Refused != "" || len(ch.Files) != 1 || ch.Files[0].Mode != "120000" {
		t.Errorf("change = %+v", ch)
	}
}

// Crafted patches with "..", .git or absolute paths are refused before
// git applies anything.
func TestApplyRefusesBadPaths(t *testing.T) {
	t.Parallel()
	patch := func(p string) []byte {
		return []byte("diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1 @@\n+x\n")
	}
	tests := []struct {
		name  string
		patch []byte
		want  string
	}{
		{"dot dot", patch("../escape.txt"), "escape.txt"},
		{"dot dot inside", patch("a/../../escape.txt"), "escape.txt"},
		{"under .git", patch(".git/hooks/pre-commit"), ".git"},
		{"under nested .git", patch("sub/.GIT/config"), ".GIT"},
		{"empty", nil, "empty"},
		{"not a patch", []byte("hello\n"), "No valid patches"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t, map[string]string{"a.txt": "a\n"})
			err := Apply(t.Context(), "", repo, tc.patch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Apply = %v, want an error mentioning %q", err, tc.want)
			}
			if st := sh(t, repo, "git status --porcelain --untracked-files=all"); st != "" {
				t.Errorf("the workspace changed:\n%s", st)
			}
			if _, err := os.Stat(repo + "/../escape.txt"); err == nil {
				t.Error("escape.txt was written outside the repository")
			}
		})
	}
}

// A patch of two files whose second no longer applies changes nothing:
// checked first, never partially applied.
func TestApplyIsAllOrNothing(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), "echo a2 > a.txt && echo b2 > b.txt")
	ch := capture(t, tr, Limits{})
	sh(t, repo, "echo moved > b.txt && git commit -qam moved")
	err := Apply(t.Context(), "", repo, ch.Patch)
	if !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("Apply = %v, want ErrNotApplicable", err)
	}
	if got := sh(t, repo, "git status --porcelain; cat a.txt b.txt"); got != "a\nmoved" {
		t.Errorf("after a failed apply: %q", got)
	}
}

// Rebase carries a patch onto a base that moved elsewhere, and refuses one
// whose lines moved under it.
func TestRebase(t *testing.T) {
	t.Parallel()
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	repo := newRepo(t, map[string]string{"a.txt": lines, "gone.txt": "g\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), "echo 10 >> a.txt && rm gone.txt && echo n > new.txt && chmod +x new.txt")
	ch := capture(t, tr, Limits{})

	// The base's tip changed a.txt above the agent's edit: still applies.
	pre := []File{{Path: "a.txt", Mode: "100644", Content: []byte("0\n" + lines)}, {Path: "gone.txt", Mode: "100644", Content: []byte("g\n")}}
	files, err := Rebase(t.Context(), "", ch.Patch, pre)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Path: "a.txt", Mode: "100644", Content: []byte("0\n" + lines + "10\n")},
		{Path: "gone.txt", Delete: true},
		{Path: "new.txt", Mode: "100755", Content: []byte("n\n")},
	}
	if d := diffFiles(want, files); d != "" {
		t.Errorf("rebased files: %s", d)
	}

	// The tip rewrote the agent's lines, or already has the new file, or
	// lost a file the patch changes.
	for name, pre := range map[string][]File{
		"conflict":      {{Path: "a.txt", Content: []byte("1\n2\n3\n4\n5\n6\n7\nx\ny\n")}, {Path: "gone.txt", Content: []byte("g\n")}},
		"already there": {{Path: "a.txt", Content: []byte(lines)}, {Path: "gone.txt", Content: []byte("g\n")}, {Path: "new.txt", Content: []byte("n\n")}},
		"missing":       {{Path: "gone.txt", Content: []byte("g\n")}},
	} {
		if _, err := Rebase(t.Context(), "", ch.Patch, pre); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("%s: Rebase = %v, want ErrNotApplicable", name, err)
		}
	}
}

func diffFiles(want, got []File) string {
	if len(want) != len(got) {
		return "different lengths"
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Path != g.Path || w.Mode != g.Mode || w.Delete != g.Delete || string(w.Content) != string(g.Content) {
			return "entry " + w.Path + " differs"
		}
	}
	return ""
}

// renamePatch renames .github/workflows/ci.yml to x.yml, as git
// format-patch -M writes it; optr's own captures never rename (they use
// --no-renames), but a gathered task's patch.diff is anybody's text.
const renamePatch = `diff --git a/.github/workflows/ci.yml b/x.yml
similarity index 100%
rename from .github/workflows/ci.yml
rename to x.yml
`

// A rename touches both of its paths: the one it removes is listed too,
// refused when it is not clean, and carried as a deletion.
func TestPatchPathsListsBothSidesOfARename(t *testing.T) {
	t.Parallel()
	paths, err := PatchPaths(t.Context(), "", []byte(renamePatch))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x.yml", ".github/workflows/ci.yml"}; !slices.Equal(paths, want) {
		t.Errorf("PatchPaths = %q, want %q", paths, want)
	}
	hook := strings.ReplaceAll(renamePatch, ".github/workflows/ci.yml", ".git/hooks/pre-commit")
	if _, err := PatchPaths(t.Context(), "", []byte(hook)); err == nil || !strings.Contains(err.Error(), `".git/hooks/pre-commit" is under .git/`) {
		t.Errorf("PatchPaths(a rename out of .git/) = %v, want the refusal naming it", err)
	}
	pre := []File{{Path: ".github/workflows/ci.yml", Mode: "100644", Content: []byte("a\n")}}
	files, err := Rebase(t.Context(), "", []byte(renamePatch), pre)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: ".github/workflows/ci.yml", Delete: true}, {Path: "x.yml", Mode: "100644", Content: []byte("a\n")}}
	if d := diffFiles(want, files); d != "" {
		t.Errorf("rebased rename: %s", d)
	}
}

// Issue 37 findings 2 and 3: a secret optr was given is refused in a
// change however the agent carries it — encoded (base64, base64url, hex,
// reversed), cut into pieces under 8 bytes across lines and files, or
// spelt as joined strings. The control, the same changes from a capture
// whose Redactor does not know the value, goes through: the protection is
// what refuses them.
func TestCaptureRefusesSecretsInPieces(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-E2EpiecesKEY-0123456789abcdef"
	for name, script := range map[string]string{
		"base64":           `printf 'cfg: %s\n' "$(printf '{"k":"%s"}' "$KEY" | base64 -w0)" > enc.txt`,
		"base64url":        `printf '%s' "x$KEY" | base64 -w0 | tr '+/' '-_' > enc.txt`,
		"hex":              `printf '%s' "$KEY" | od -An -tx1 | tr -d ' \n' > enc.txt`,
		"reversed":         `printf '%s\n' "$KEY" | rev > enc.txt`,
		"lines of 5 bytes": `printf '%s' "$KEY" | fold -w5 > pieces.txt`,
		"across files":     `printf '%s' "$KEY" | cut -c1-7 > a1.txt; printf '%s' "$KEY" | cut -c8-14 > a2.txt; printf '%s' "$KEY" | cut -c15- > a3.txt`,
		"joined strings":   `printf 'k = "%s" + "%s" + "%s"\n' "$(printf %s "$KEY" | cut -c1-6)" "$(printf %s "$KEY" | cut -c7-12)" "$(printf %s "$KEY" | cut -c13-)" > join.py`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, known := range []bool{true, false} {
				repo := newRepo(t, map[string]string{"a.txt": "a\n"})
				tr := add(t, start(t, repo, "run-1"), "agent")
				sh(t, tr.Dir(), "KEY="+key+"; "+script)
				lim := Limits{}
				if known {
					lim.Redactor = redact.New(key)
				}
				ch := capture(t, tr, lim)
				refused := strings.Contains(ch.Refused, "contains the value of a secret")
				if refused != known {
					t.Errorf("known %v: refused %v (%q); patch:\n%s", known, refused, ch.Refused, ch.Patch)
				}
			}
		})
	}
}
