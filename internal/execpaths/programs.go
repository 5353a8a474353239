package execpaths

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// python follows `python [options] (-m module | script.py) args`: a
// module's whole top-level package (and its .py file), or the .py files
// beside a script, which it imports first.
func (f *follower) python(args []string, dir, by string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			top, _, _ := strings.Cut(args[i+1], ".")
			f.set.AddTree(path.Join(dir, top), "the package of python -m "+args[i+1])
			f.set.AddFile(path.Join(dir, top+".py"), "the module of python -m "+args[i+1])
			f.set.AddFlat(dir, ".py", "beside python -m "+args[i+1]+", which it imports from")
			return
		case a == "-c" && i+1 < len(args):
			f.set.AddFlat(dir, ".py", "what python -c in "+dir+" imports from")
			return
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if p := f.file(a, dir); p != "" {
				f.set.AddFlat(path.Dir(p), ".py", "beside "+p+", which Python imports from")
			}
			return
		}
	}
}

// make follows `make [-C dir] [-f file] …`: the Makefile it reads (and
// what that includes), and the commands of its recipes.
func (f *follower) make(args []string, dir string, depth int) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-C" || a == "--directory") && i+1 < len(args):
			dir = path.Join(dir, args[i+1])
			i++
		case strings.HasPrefix(a, "--directory="):
			dir = path.Join(dir, strings.TrimPrefix(a, "--directory="))
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args):
			files = append(files, args[i+1])
			i++
		}
	}
	if len(files) == 0 {
		files = []string{"GNUmakefile", "makefile", "Makefile"}
	}
	for _, name := range files {
		p := f.file(name, dir)
		if p == "" {
			continue
		}
		f.set.AddFile(p, "make reads it")
		f.makefile(p, dir, depth)
		break
	}
}

// makefile follows the Makefile p, run in dir: its includes, and its
// recipes' commands as shell code.
func (f *follower) makefile(p, dir string, depth int) {
	data := f.load(p)
	if data == nil {
		return
	}
	inc, ok := makeIncludes(data)
	if !ok {
		f.unresolved(p, dir, p, "it includes a file named when make runs")
	}
	for _, name := range inc {
		if q := f.file(name, dir); q != "" {
			f.set.AddFile(q, "included by "+p)
			f.makefile(q, dir, depth+1)
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		if r, ok := strings.CutPrefix(line, "\t"); ok {
			r = strings.TrimLeft(r, "@-+")
			if !strings.Contains(r, "$(") && !strings.Contains(r, "${") { // make's variables: not known here
				f.shellText(r, "", dir, "a recipe of "+p, depth+1, false)
			}
		}
	}
}

// npm follows `npm test`, `npm run X`, `yarn X`, `pnpm X`, `bun run X`:
// package.json, and the script it runs (with its pre and post scripts).
func (f *follower) npm(prog string, args []string, dir string, depth int) {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "--prefix" || a == "-C" || a == "--cwd" || a == "--dir") && i+1 < len(args):
			dir = path.Join(dir, args[i+1])
			i++
		case strings.HasPrefix(a, "--prefix=") || strings.HasPrefix(a, "--cwd=") || strings.HasPrefix(a, "--dir="):
			_, v, _ := strings.Cut(a, "=")
			dir = path.Join(dir, v)
		case strings.HasPrefix(a, "-"):
		default:
			words = append(words, a)
		}
	}
	pkg := f.file("package.json", dir)
	if pkg == "" {
		return
	}
	f.set.AddFile(pkg, prog+" reads it")
	if len(words) == 0 {
		return
	}
	script := words[0]
	switch script {
	case "run", "run-script", "exec":
		if len(words) < 2 {
			return
		}
		script = words[1]
	case "t", "tst":
		script = "test"
	}
	data := f.load(pkg)
	if data == nil {
		return
	}
	var doc struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &doc) != nil {
		f.unresolved(pkg, dir, pkg, "it is not JSON")
		return
	}
	for _, name := range []string{"pre" + script, script, "post" + script} {
		if code, ok := doc.Scripts[name]; ok {
			f.shellText(code, "", dir, pkg+"'s script "+strconv.Quote(name), depth+1, true)
		}
	}
}

// goRun follows `go run [flags] package|files [args]`: go.mod, go.sum,
// go.work, the package, and the module's own packages it imports, however
// deep (imports read from the files, build tags ignored: a superset).
func (f *follower) goRun(args []string, dir string) {
	var targets []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && goFlagTakesValue(a) {
				i++
			}
			continue
		}
		if strings.HasSuffix(a, ".go") {
			targets = append(targets, a)
			continue
		}
		targets = append(targets, a)
		break // the package; the rest are its arguments
	}
	modDir, modPath := f.module(dir)
	if modDir == "" {
		return
	}
	for _, name := range []string{"go.mod", "go.sum", "go.work", "go.work.sum"} {
		if p := path.Join(modDir, name); f.exists(p) {
			f.set.AddFile(p, "go run reads it")
		}
	}
	if f.exists(path.Join(modDir, "vendor")) {
		f.set.AddTree(path.Join(modDir, "vendor"), "go run builds from it")
	}
	for _, t := range targets {
		var pkgDir string
		switch {
		case strings.HasSuffix(t, ".go"):
			pkgDir = path.Dir(path.Join(dir, t))
		case strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || t == ".":
			pkgDir = path.Join(dir, t)
		case t == modPath || strings.HasPrefix(t, modPath+"/"):
			pkgDir = path.Join(modDir, strings.TrimPrefix(strings.TrimPrefix(t, modPath), "/"))
		default:
			continue // another module's: the module cache, not the repository
		}
		f.goPackage(clean(pkgDir), modDir, modPath)
	}
}

// goFlagTakesValue reports whether a go build flag takes the next word.
func goFlagTakesValue(flag string) bool {
	switch strings.TrimLeft(flag, "-") {
	case "C", "exec", "o", "p", "tags", "ldflags", "gcflags", "asmflags", "gccgoflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "toolexec", "covermode", "coverpkg":
		return true
	}
	return false
}

// module finds the go.mod at or above dir: its folder and module path.
func (f *follower) module(dir string) (modDir, modPath string) {
	for d := dir; ; d = path.Dir(d) {
		p := path.Join(d, "go.mod")
		if f.exists(p) {
			return d, modfile.ModulePath(f.read(p, maxRead))
		}
		if d == "." || d == "/" {
			return "", ""
		}
	}
}

// goPackage adds the Go files of the package in pkgDir and follows the
// module's packages they import.
func (f *follower) goPackage(pkgDir, modDir, modPath string) {
	if pkgDir == "" || f.seen["go:"+pkgDir] || len(f.seen) >= maxFiles {
		return
	}
	f.seen["go:"+pkgDir] = true
	f.set.AddFlat(pkgDir, ".go", "a package go run builds")
	dir, err := f.root.Open(filepath.FromSlash(pkgDir))
	if err != nil {
		return
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src := f.read(path.Join(pkgDir, e.Name()), maxRead)
		if src == nil {
			continue
		}
		file, err := parser.ParseFile(fset, path.Join(pkgDir, e.Name()), src, parser.ImportsOnly)
		if err != nil {
			continue // the compiler refuses it too
		}
		for _, imp := range file.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil || modPath == "" || (ip != modPath && !strings.HasPrefix(ip, modPath+"/")) {
				continue
			}
			f.goPackage(clean(path.Join(modDir, strings.TrimPrefix(strings.TrimPrefix(ip, modPath), "/"))), modDir, modPath)
		}
	}
}
