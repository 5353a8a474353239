// Package npmtest installs the pinned npm packages that the test kits
// driving real JavaScript tools need (Ajv for ajvtest, Mermaid's parser for
// mermaidtest, the Copilot CLI for llmtest): once per machine, into a
// directory under the user's cache that every test binary shares, taking
// turns with a file lock.
package npmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/testkit/filelock"
)

// Package is an npm package at a pinned version.
type Package struct {
	Name, Version string
}

// Spec is the package as npm install takes it: name@version.
func (p Package) Spec() string { return p.Name + "@" + p.Version }

// Setup describes one kit's installation.
type Setup struct {
	// Dir is the npm prefix: node_modules/ is made in it.
	Dir string
	// Packages are installed unless Dir holds each at its version.
	Packages []Package
	// Files (relative to Dir) must exist too for an installation to be
	// complete: a package's native binary.
	Files []string
	// Env is added to npm's environment.
	Env []string
	// Then, when set, runs after the installation, under the same lock:
	// a kit's own one-time set-up (a script written, a CLI unpacked).
	Then func() error
}

// CacheDir returns the directory name under the user's cache.
func CacheDir(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, name), nil
}

// Install makes sure s.Dir holds s.Packages (and s.Files), installing them
// with npm when it does not, then runs s.Then. Test binaries of several
// packages may set up at once: one installs, the others wait for it. skip
// is set, with npm's reason, when npm could not install them (no npm, or
// the registry is unreachable): the caller's tests skip then.
func Install(ctx context.Context, s Setup) (skip string, err error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := filelock.Lock(filepath.Join(s.Dir, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if !s.installed() {
		specs := make([]string, len(s.Packages))
		for i, p := range s.Packages {
			specs[i] = p.Spec()
		}
		cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", s.Dir}, specs...)...)
		cmd.Env = append(os.Environ(), s.Env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !s.installed() {
			return fmt.Sprintf("npm could not install %s (no npm, or the registry is unreachable): %v: %s", strings.Join(specs, " "), err, LastLines(out, 5)), nil
		}
	}
	if s.Then != nil {
		return "", s.Then()
	}
	return "", nil
}

// installed reports whether s.Dir holds every package at its version, and
// every file.
func (s Setup) installed() bool {
	for _, p := range s.Packages {
		b, err := os.ReadFile(filepath.Join(s.Dir, "node_modules", filepath.FromSlash(p.Name), "package.json"))
		if err != nil || !strings.Contains(string(b), `"version": "`+p.Version+`"`) {
			return false
		}
	}
	for _, f := range s.Files {
		if fi, err := os.Stat(filepath.Join(s.Dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// LastLines is the last n lines of a command's output, for an error.
func LastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
