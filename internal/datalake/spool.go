package datalake

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/procgroup"
	"github.com/optr-dev/optr/internal/spool"
)

// SpoolDir creates the run's agent-outputs directory and returns it: the
// agents' Request.SpoolDir, where an output too large to hold in memory
// waits, redacted, until the run's files are written from it. Spool files
// (spool.FilePrefix) are never listed by Files, so never recorded or
// committed; RemoveSpools removes them, and CleanStale those a run whose
// process is gone left.
func (r *Run) SpoolDir() (string, error) {
	dir := filepath.Join(r.Dir, DirOutputs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// RemoveSpools removes the spool files of the run (see SpoolDir).
func (r *Run) RemoveSpools() error {
	_, err := removeSpools(r.Dir)
	return err
}

// removeSpools removes the spool files in agent-outputs/ of the run
// directory dir and returns their paths.
func removeSpools(dir string) ([]string, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, DirOutputs, spool.FilePrefix+"*"))
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return paths, errors.Join(errs...)
}

// isSpool reports whether a file named name in dir is a spool file.
func isSpool(dir, name string) bool {
	return strings.HasPrefix(name, spool.FilePrefix) && filepath.Base(dir) == DirOutputs
}

// ownerGone reports whether no live process runs the run in dir.
func ownerGone(dir string) bool {
	owner, _, _, ok := readRunning(dir)
	return !ok || !procgroup.Alive(owner)
}
