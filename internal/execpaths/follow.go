package execpaths

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Bounds on what one Of follows: programs that call programs that source
// files, however deep, cost a bounded amount of reading.
const (
	maxDepth = 8
	maxFiles = 500
	// maxRead bounds a file read to follow it (a script, a Makefile,
	// package.json, a Go file's imports).
	maxRead = 1 << 20
)

// Of adds to s what argv — a command agent's or command check's run,
// started with the repository's root as its working directory — executes
// or loads of the repository checked out at root (a folder on disk).
// Nothing outside root is read: a link that leaves it is not followed.
func (s *Set) Of(root string, argv []string) {
	fsys, err := os.OpenRoot(root)
	if err != nil {
		return
	}
	defer fsys.Close()
	f := &follower{root: fsys, set: s, seen: map[string]bool{}}
	f.command(argv, ".", "the config's run", 0)
}

// follower walks from a command to the files it loads.
type follower struct {
	root *os.Root
	set  *Set
	seen map[string]bool
}

// stat is what the repository's p (relative to the root) is, following
// links only within the root.
func (f *follower) stat(p string) (os.FileInfo, error) {
	return f.root.Stat(filepath.FromSlash(p))
}

// read reads the regular file p of the repository, at most limit bytes
// (nil past them): never a FIFO or a device, never outside the root.
func (f *follower) read(p string, limit int64) []byte {
	if info, err := f.stat(p); err != nil || !info.Mode().IsRegular() || info.Size() > limit {
		return nil
	}
	file, err := f.root.Open(filepath.FromSlash(p))
	if err != nil {
		return nil
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil
	}
	return data
}

// command follows argv run in the folder dir (relative to the root): the
// program it starts, and every word that names a file of the repository.
func (f *follower) command(argv []string, dir, by string, depth int) {
	if len(argv) == 0 || depth > maxDepth {
		return
	}
	if depth == 0 { // the config's own run: any word that names a file or folder
		for _, arg := range argv {
			for _, w := range strings.FieldsFunc(arg, shellBreak) {
				f.named(w, dir, by, true)
			}
		}
	}
	argv = unwrap(argv)
	if len(argv) == 0 {
		return
	}
	if depth > 0 { // a command a script runs: the program, and the script an interpreter runs
		if p := f.file(argv[0], dir); p != "" {
			f.set.AddFile(p, by+" runs it")
		}
		if p := f.interpreted(argv, dir); p != "" {
			f.set.AddFile(p, by+" runs it")
		}
	}
	prog := path.Base(argv[0])
	switch {
	case isShell(prog):
		f.shellArgs(argv[1:], dir, by, depth)
	case isPython(prog):
		f.python(argv[1:], dir, by)
	case prog == "make" || prog == "gmake":
		f.make(argv[1:], dir, depth)
	case prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun":
		f.npm(prog, argv[1:], dir, depth)
	case prog == "go" && len(argv) > 1 && argv[1] == "run":
		f.goRun(argv[2:], dir)
	default:
		if p := f.file(argv[0], dir); p != "" {
			f.script(p, depth)
		}
	}
}

// interpreted is the repository file an interpreter in argv runs (sh,
// bash, python, node, ruby, perl, php, deno, bun, tsx, ts-node): its
// first word that is not an option; "" when none.
func (f *follower) interpreted(argv []string, dir string) string {
	prog := path.Base(argv[0])
	switch {
	case isShell(prog), isPython(prog):
	case prog == "node", prog == "ruby", prog == "perl", prog == "php", prog == "deno", prog == "bun", prog == "tsx", prog == "ts-node":
	default:
		return ""
	}
	for _, a := range argv[1:] {
		if a == "-c" || a == "-e" || a == "-m" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return f.file(a, dir)
		}
	}
	return ""
}

// named adds w when it names a file of the repository, from dir, or a
// folder when folders is set.
func (f *follower) named(w, dir, by string, folders bool) {
	p := f.rel(w, dir)
	if p == "" || p == "." {
		return
	}
	info, err := f.stat(p)
	switch {
	case err != nil:
	case info.IsDir():
		if folders {
			f.set.AddTree(p, "a folder "+by+" names")
		}
	default:
		f.set.AddFile(p, by+" names it")
	}
}

// rel is w, a path as a program in dir sees it, relative to the root; ""
// when it leaves the repository.
func (f *follower) rel(w, dir string) string {
	if path.IsAbs(w) {
		return ""
	}
	return clean(path.Join(dir, w))
}

// file is w as a regular file of the repository seen from dir, "" when
// it is none.
func (f *follower) file(w, dir string) string {
	p := f.rel(w, dir)
	if p == "" || p == "." {
		return ""
	}
	info, err := f.stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	return p
}

// load reads the repository file p once, at most maxRead bytes: nil when
// it was read before, is missing, or the bounds are reached.
func (f *follower) load(p string) []byte {
	if f.seen[p] || len(f.seen) >= maxFiles {
		return nil
	}
	f.seen[p] = true
	return f.read(p, maxRead)
}

// script follows the repository file p run as a program: by its name or
// its #! line, a shell script or a Python one.
func (f *follower) script(p string, depth int) {
	head := f.peek(p)
	switch {
	case strings.HasSuffix(p, ".py") || strings.Contains(head, "python"):
		f.set.AddFlat(path.Dir(p), ".py", "beside "+p+", which Python imports from")
	case strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".bash") || isShellLine(head):
		f.shellFile(p, depth)
	}
}

// peek returns the first line of p, as far as its first 256 bytes go.
func (f *follower) peek(p string) string {
	data := f.read(p, maxRead)
	line, _, _ := strings.Cut(string(data[:min(len(data), 256)]), "\n")
	return line
}

func isShellLine(line string) bool {
	if !strings.HasPrefix(line, "#!") {
		return false
	}
	for _, w := range strings.Fields(line[2:]) {
		if isShell(path.Base(w)) {
			return true
		}
	}
	return false
}

func isShell(prog string) bool {
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh":
		return true
	}
	return false
}

func isPython(prog string) bool {
	return prog == "python" || strings.HasPrefix(prog, "python3") || strings.HasPrefix(prog, "python2") || prog == "pypy3"
}

// unwrap drops the programs that only start another: env (and its
// VAR=value words), timeout N, nice, nohup, exec, command, time.
func unwrap(argv []string) []string {
	for len(argv) > 0 {
		switch path.Base(argv[0]) {
		case "env":
			argv = argv[1:]
			for len(argv) > 0 && (strings.Contains(argv[0], "=") || strings.HasPrefix(argv[0], "-")) {
				argv = argv[1:]
			}
		case "timeout":
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				argv = argv[1:]
			}
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		case "nice", "nohup", "exec", "command", "time":
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				argv = argv[1:]
			}
		default:
			return argv
		}
	}
	return argv
}

// shellBreak splits an argument into the words a shell could run.
func shellBreak(r rune) bool {
	return strings.ContainsRune(" \t\n;&|()<>'\"`$=", r)
}

// exists reports whether the repository has p (relative to the root).
func (f *follower) exists(p string) bool {
	_, err := f.stat(p)
	return err == nil
}
