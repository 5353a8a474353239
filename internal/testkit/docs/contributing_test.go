package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goPackages returns the directories under cmd and internal that hold a
// non-test Go file, slash-separated and relative to the repository root.
func goPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// section returns the text of md from the heading "## title" to the next
// "## " heading.
func section(t *testing.T, md, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("no section %q (## %s)", title, title)
	}
	text, _, _ := strings.Cut(rest, "\n## ")
	return text
}

// TestContributingMapsEveryPackage: the map of the code in CONTRIBUTING.md
// has a row for every package, and no row for a package that is gone.
func TestContributingMapsEveryPackage(t *testing.T) {
	t.Parallel()
	text := section(t, readRoot(t, "CONTRIBUTING.md"), "Map of the code")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var mapped []string
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		mapped = append(mapped, m[1])
	}
	slices.Sort(mapped)
	if diff := cmp.Diff(goPackages(t), mapped); diff != "" {
		t.Errorf("CONTRIBUTING.md's map of the code differs from the packages (-packages +map):\n%s", diff)
	}
}

// exampleFiles are the files the worked examples of "Where to add …"
// create: they do not exist until someone follows them.
var exampleFiles = []string{"internal/check/minlength.go", "internal/check/minlength_test.go"}

// TestContributingNamesFilesThatExist: every file the recipes in
// CONTRIBUTING.md name exists, so that a renamed file is renamed there too.
func TestContributingNamesFilesThatExist(t *testing.T) {
	t.Parallel()
	text := section(t, readRoot(t, "CONTRIBUTING.md"), "Where to add …")
	file := regexp.MustCompile("`((?:internal|cmd)/[^`<>* ]+\\.(?:go|json|yml))`")
	found := 0
	for _, m := range file.FindAllStringSubmatch(text, -1) {
		found++
		if slices.Contains(exampleFiles, m[1]) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("CONTRIBUTING.md names %s: %v", m[1], err)
		}
	}
	if found < 10 {
		t.Errorf("found %d file names in CONTRIBUTING.md's recipes; the pattern no longer matches how they are written", found)
	}
}
