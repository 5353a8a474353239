package program

import (
	"path/filepath"
	"slices"
	"strings"
)

// Install returns what the program at path (as Resolve found it) needs to
// read to run, beside itself: the directory its symbolic links lead to,
// or, for a program inside a node_modules directory (npm's .bin entries
// are links into their packages, whose code needs sibling packages: Codex
// CLI's wrapper runs its platform package's binary), that whole
// node_modules directory. It is empty when path is no link and lies in no
// node_modules; ok is false when path's links cannot be followed.
//
// A sandbox grants these to a process whose program it runs (architecture
// §4.14): an npm install under a home directory or /tmp is otherwise
// outside what a sandboxed process may read, and the program fails to
// start with "permission denied".
func Install(path string) (dirs []string, ok bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, false
	}
	add := func(d string) {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, p := range []string{path, real} {
		if nm := nodeModules(p); nm != "" {
			add(nm)
		}
	}
	if real != path && len(dirs) == 0 {
		add(filepath.Dir(real))
	}
	return dirs, true
}

// nodeModules is the outermost node_modules directory p lies in, "" when
// there is none.
func nodeModules(p string) string {
	parts := strings.Split(filepath.Clean(p), string(filepath.Separator))
	for i, part := range parts[:max(0, len(parts)-1)] {
		if part == "node_modules" {
			return string(filepath.Separator) + filepath.Join(parts[:i+1]...)
		}
	}
	return ""
}
