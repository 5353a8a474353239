package llm

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInTree: paths are judged by where they really are, symbolic links
// (dangling ones too) resolved, and .git, in any component and any
// case, is out of bounds.
func TestInTree(t *testing.T) {
	t.Parallel()
	tree, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"src", ".git"} {
		if err := os.Mkdir(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"out": outside, "dangling": filepath.Join(outside, "new.txt"), "inner": filepath.Join(tree, "src")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{
		"main.go":                           true,
		"src/new/deep/file.go":              true,
		filepath.Join(tree, "src", "a.go"):  true,
		"inner/b.go":                        true,
		".":                                 true,
		"":                                  false,
		"../x":                              false,
		"src/../../x":                       false,
		filepath.Join(outside, "x"):         false,
		"out/x":                             false,
		"dangling":                          false,
		".git/config":                       false,
		".git":                              false,
		filepath.Join(tree, ".git", "HEAD"): false,
		".gitignore":                        true,
		"sub/.git/config":                   false,
		".GIT/config":                       false,
		"src/.Git":                          false,
		"src/.github/x.yml":                 true,
	}
	for p, want := range tests {
		if got := inTree(real, tree, p); got != want {
			t.Errorf("inTree(%q) = %v, want %v", p, got, want)
		}
	}
}
