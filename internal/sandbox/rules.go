package sandbox

import (
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/program"
	"github.com/optr-dev/optr/internal/sandbox/env"
	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// systemDirs are read (and executed) by every process: the programs and
// libraries, the configuration under /etc, /proc and /sys, the resolver's
// file on systemd systems, the tool cache of GitHub's runners. Home
// directories, /tmp, /root, /var and the runner's own files are not.
var systemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/proc", "/sys", "/dev", "/nix", "/snap", "/run/systemd/resolve", "/opt/hostedtoolcache",
}

// devices may be written and given ioctls: the bit buckets, the random
// sources and terminals.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// installOf is what the program a process runs needs to read besides
// itself (program.Install), found on the PATH of env: an npm .bin entry
// on PATH links into its package, which may be under a home directory or
// /tmp.
func installOf(p Process, environ []string) []string {
	if p.Program == "" {
		return nil
	}
	path, _ := env.Lookup(environ, "PATH")
	prog, err := program.Resolve(p.Program, p.Dir, path)
	if err != nil {
		return nil
	}
	dirs, _ := program.Install(prog)
	return dirs
}

// rules are the Landlock rules of the launch.
func (l *Launch) rules() *launcher.FSRules {
	fs := &launcher.FSRules{
		WriteDirs: []string{l.dir},
		Devices:   devices,
	}
	read := append([]string(nil), systemDirs...)
	if tc, ok := env.Lookup(l.r.s.Environ, "RUNNER_TOOL_CACHE"); ok && filepath.IsAbs(tc) {
		read = append(read, tc)
	}
	if path, ok := env.Lookup(l.env, "PATH"); ok {
		for _, d := range filepath.SplitList(path) {
			if filepath.IsAbs(d) {
				read = append(read, d)
			}
		}
	}
	read = append(read, l.install...)
	read = append(read, l.r.s.Read...)
	read = append(read, l.p.Read...)
	if l.p.Dir != "" {
		if l.p.WriteDir {
			fs.WriteDirs = append(fs.WriteDirs, l.p.Dir)
		} else {
			read = append(read, l.p.Dir)
		}
	}
	fs.WriteDirs = append(fs.WriteDirs, l.p.Write...)
	for _, p := range read {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			fs.ReadDirs = append(fs.ReadDirs, p)
		default:
			fs.ReadFiles = append(fs.ReadFiles, p)
		}
	}
	return fs
}
