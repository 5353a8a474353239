package program

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve returns the absolute path of the executable argv0 names. A name
// with a slash is taken relative to dir; a bare name is searched on
// pathEnv, the PATH the command will run with. This is written here because
// exec.LookPath searches optr's own PATH, which the agent's configured env
// may change. Like exec.LookPath, relative PATH entries are skipped.
func Resolve(argv0, dir, pathEnv string) (string, error) {
	if strings.Contains(argv0, "/") {
		p := argv0
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		return abs, isExecutable(abs)
	}
	var found error
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, argv0)
		err := isExecutable(p)
		if err == nil {
			return p, nil
		}
		if found == nil && !errors.Is(err, fs.ErrNotExist) {
			found = err // it exists but cannot run: a better message than "not found"
		}
	}
	if found != nil {
		return "", found
	}
	return "", fmt.Errorf("%q was not found in PATH (%s): install it, or give its full path", argv0, pathEnv)
}

// isExecutable checks that p is a file someone may execute.
func isExecutable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: %w", p, fs.ErrNotExist)
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a program", p)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable: make it so (chmod +x) or run it through its interpreter, e.g. run: [sh, %s]", p, p)
	}
	return nil
}
