//go:build unix

package execpaths

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// What a checkout could hold to stall or steer the walk: a FIFO where a
// script is sourced is not opened (it would block), and a link that leaves
// the repository is not followed (what it points at is not read).
func TestHostileFiles(t *testing.T) {
	t.Parallel()
	root := repo(t, map[string]string{
		"scripts/check.sh": ". scripts/pipe.sh\n. scripts/away.sh\n",
		"inside/leak.sh":   "true\n",
	})
	if err := syscall.Mkfifo(filepath.Join(root, "scripts", "pipe.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "away.sh")
	if err := os.WriteFile(outside, []byte(". inside/leak.sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "scripts", "away.sh")); err != nil {
		t.Fatal(err)
	}
	s := NewSet()
	s.Of(root, []string{"sh", "scripts/check.sh"})
	if _, ok := s.Match("scripts/check.sh"); !ok {
		t.Errorf("the script is not in the set: %v", s.Files())
	}
	if why, ok := s.Match("inside/leak.sh"); ok {
		t.Errorf("a file named by a script outside the repository is in the set (%s): the link was followed", why)
	}
}
