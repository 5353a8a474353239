package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/program"
	"github.com/optr-dev/optr/internal/sandbox/env"
)

// CanRun says why the program of p could not start as the run would start
// it, nil when it can: not found on the PATH it runs with, not executable,
// outside what it may read (Landlock: the system, PATH, the tool cache,
// sandbox.read, its directories and its install), or not readable by the
// unprivileged user it runs as. It starts nothing, and is meant for the
// run's preflight (architecture §4.14): a program that cannot run is a
// configuration error before any agent starts, not an attempt that fails.
// Call it after Start.
func (r *Run) CanRun(p Process) error {
	environ := slices.Clone(p.Env) // nil r: p.Env is the whole environment
	if r != nil {
		base := r.s.Environ
		if !r.Off() {
			base = env.Base(r.s.Environ)
		}
		environ = env.Merge(base, p.Env)
	}
	path, _ := env.Lookup(environ, "PATH")
	prog, err := program.Resolve(p.Program, p.Dir, path)
	if err != nil {
		return err
	}
	if r.Off() {
		return nil
	}
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return err
	}
	if r.layers.FS != "none" {
		readable := append(slices.Clone(systemDirs), r.s.Read...)
		if tc, ok := env.Lookup(r.s.Environ, "RUNNER_TOOL_CACHE"); ok && filepath.IsAbs(tc) {
			readable = append(readable, tc)
		}
		for _, d := range filepath.SplitList(path) {
			if filepath.IsAbs(d) {
				readable = append(readable, d)
			}
		}
		readable = append(readable, p.Read...)
		readable = append(readable, p.Write...)
		readable = append(readable, installOf(p, environ)...)
		if p.Dir != "" {
			readable = append(readable, p.Dir)
		}
		if !slices.ContainsFunc(readable, func(d string) bool { return under(real, d) }) {
			return fmt.Errorf("%s is outside what a sandboxed process may read; add %s to sandbox.read", describe(prog, real), filepath.Dir(real))
		}
	}
	if r.uid >= 0 {
		if why := othersReach(real); why != "" {
			return fmt.Errorf("%s cannot be run by uid %d, the unprivileged user agents run as: %s; make it readable and executable by others (chmod o+rx), or install it under /usr/local or /opt", describe(prog, real), r.uid, why)
		}
	}
	return nil
}

// describe names a program and, when a link led elsewhere, where.
func describe(prog, real string) string {
	if prog == real {
		return prog
	}
	return prog + " (" + real + ")"
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	dir = filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// othersReach says why a user that is neither the owner nor in the group
// of the files (the unprivileged user) cannot execute the file at real:
// a directory above it that others may not pass (one optr owns is made
// passable when a process starts, see searchable), or the file not
// executable by others; "" when it can.
func othersReach(real string) string {
	me := os.Geteuid()
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err.Error()
		}
		if uid, _, ok := owner(fi); ok && uid != me && fi.Mode().Perm()&0o001 == 0 {
			return d + " may not be passed by others"
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err.Error()
	}
	if fi.Mode().Perm()&0o005 != 0o005 {
		return fmt.Sprintf("%s is %s, not readable and executable by others", real, fi.Mode().Perm())
	}
	return ""
}
