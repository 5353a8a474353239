package execpaths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repo writes files (path → content) under a new root.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Each way a program loads a file of the repository puts that file in
// the set, and files nothing loads stay out.
func TestOf(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"scripts/check.sh":      "#!/bin/sh\nset -e\nDIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n. \"$DIR/lib/common.sh\"\nsource scripts/env.sh\nif [ -f x ]; then . ./conf/extra.sh; fi\n./tools/helper.sh\nmake lint\n",
		"scripts/lib/common.sh": "source \"${BASH_SOURCE[0]%/*}/deep.sh\"\n",
		"scripts/lib/deep.sh":   "echo deep\n",
		"scripts/env.sh":        "export A=1\n",
		"conf/extra.sh":         "true\n",
		"tools/helper.sh":       "#!/bin/bash\n. tools/helper-lib.sh\n",
		"tools/helper-lib.sh":   "true\n",
		"Makefile":              "include rules.mk\nlint:\n\t@sh scripts/lint.sh\n\t$(MAKE) other\n",
		"rules.mk":              "X=1\n",
		"scripts/lint.sh":       "true\n",
		"package.json":          `{"scripts": {"pretest": "sh scripts/pre.sh", "test": "node test/run.js && python -m pytool.cli", "build": "sh scripts/build.sh"}}`,
		"scripts/pre.sh":        "true\n",
		"scripts/build.sh":      "true\n",
		"test/run.js":           "require('./x')\n",
		"pytool/__init__.py":    "",
		"pytool/cli.py":         "import pytool.util\n",
		"pytool/util.py":        "",
		"go.mod":                "module example.com/m\n\ngo 1.22\n",
		"go.sum":                "",
		"cmd/gen/main.go":       "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/internal/a\"\n)\n\nfunc main() { fmt.Println(a.X) }\n",
		"internal/a/a.go":       "package a\n\nimport \"example.com/m/internal/b\"\n\nvar X = b.Y\n",
		"internal/b/b.go":       "package b\n\nvar Y = 1\n",
		"internal/c/c.go":       "package c\n",
		"main.go":               "package main\n",
		"README.md":             "read me\n",
		"src/app.py":            "print(1)\n",
	}
	root := repo(t, files)
	s := NewSet()
	s.Of(root, []string{"sh", "scripts/check.sh"})
	s.Of(root, []string{"npm", "test"})
	s.Of(root, []string{"go", "run", "./cmd/gen", "--flag"})
	for _, p := range []string{
		"scripts/check.sh", "scripts/lib/common.sh", "scripts/lib/deep.sh", "scripts/env.sh", "conf/extra.sh",
		"tools/helper.sh", "tools/helper-lib.sh", "Makefile", "rules.mk", "scripts/lint.sh",
		"package.json", "scripts/pre.sh", "test/run.js", "pytool/cli.py", "pytool/util.py",
		"go.mod", "go.sum", "cmd/gen/main.go", "internal/a/a.go", "internal/b/b.go",
	} {
		if _, ok := s.Match(p); !ok {
			t.Errorf("%s is not in the set; files %v", p, s.Files())
		}
	}
	for _, p := range []string{"scripts/build.sh", "internal/c/c.go", "main.go", "README.md", "src/app.py"} {
		if why, ok := s.Match(p); ok {
			t.Errorf("%s is in the set (%s)", p, why)
		}
	}
	if len(s.Unresolved) != 0 {
		t.Errorf("unresolved: %v", s.Unresolved)
	}
}

// A sourced path computed when the script runs puts the script's whole
// folder in the set; so does a script that does not parse.
func TestUnresolvedFailsClosed(t *testing.T) {
	t.Parallel()
	root := repo(t, map[string]string{
		"ci/run.sh":      "for f in ci/parts/*.sh; do . \"$f\"; done\n",
		"ci/parts/a.sh":  "true\n",
		"other/x.sh":     "true\n",
		"bad/broken.sh":  "if then fi (((\n",
		"bad/sibling.sh": "true\n",
	})
	s := NewSet()
	s.Of(root, []string{"bash", "ci/run.sh"})
	s.Of(root, []string{"sh", "bad/broken.sh"})
	for _, p := range []string{"ci/parts/a.sh", "ci/anything", "bad/sibling.sh"} {
		if _, ok := s.Match(p); !ok {
			t.Errorf("%s is not in the set", p)
		}
	}
	if _, ok := s.Match("other/x.sh"); ok {
		t.Error("other/x.sh is in the set")
	}
	if len(s.Unresolved) != 2 || !strings.Contains(strings.Join(s.Unresolved, "\n"), "computed when it runs") {
		t.Errorf("unresolved = %v", s.Unresolved)
	}
}

// python -m takes the module's package; a script takes the .py files
// beside it; make -C and -f, env and timeout are seen through.
func TestPrograms(t *testing.T) {
	t.Parallel()
	root := repo(t, map[string]string{
		"tools/lint.py":       "import helpers\n",
		"tools/helpers.py":    "",
		"tools/sub/other.py":  "",
		"pkg/mod/__init__.py": "",
		"pkg/mod/x.py":        "",
		"web/build.mk":        "-include web/local.mk\n",
		"web/local.mk":        "",
		"web/Makefile":        "all:\n\t./gen.sh\n",
		"web/gen.sh":          "true\n",
	})
	s := NewSet()
	s.Of(root, []string{"env", "A=1", "timeout", "5m", "python3", "-u", "tools/lint.py"})
	s.Of(root, []string{"python", "-m", "pkg.mod.x"})
	s.Of(root, []string{"make", "-C", "web"})
	s.Of(root, []string{"make", "-f", "web/build.mk"})
	for _, p := range []string{"tools/lint.py", "tools/helpers.py", "pkg/mod/x.py", "pkg/mod/__init__.py", "web/Makefile", "web/gen.sh", "web/build.mk", "web/local.mk"} {
		if _, ok := s.Match(p); !ok {
			t.Errorf("%s is not in the set; files %v", p, s.Files())
		}
	}
	if _, ok := s.Match("tools/sub/other.py"); ok {
		t.Error("tools/sub/other.py is in the set")
	}
}

// Any script, however malformed, is walked without a panic, within the
// bounds.
func FuzzOf(f *testing.F) {
	for _, s := range []string{
		". \"$(dirname \"$0\")/lib.sh\"\n", "source ${BASH_SOURCE[0]%/*}/x.sh", "make -C web -f x.mk", "npm run build --prefix web",
		"go run -tags x ./cmd/a", "python3 -m pkg.mod", "sh -c 'sh -c \"sh x.sh\"'", "if then fi (((", "x=$(pwd); . \"$x/y.sh\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		root := repo(t, map[string]string{"x.sh": script, "lib.sh": script, "package.json": `{"scripts":{"build":"sh x.sh"}}`, "Makefile": "all:\n\tsh x.sh\n"})
		s := NewSet()
		s.Of(root, []string{"sh", "x.sh"})
		s.Of(root, []string{"sh", "-c", script})
		if _, ok := s.Match("x.sh"); !ok {
			t.Fatal("the script run is not in the set")
		}
	})
}
