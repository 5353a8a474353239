package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Name is the file name of the sandbox launcher's own executable
// (cmd/optr-sandbox-launcher), which optr starts when it lies beside
// optr's executable.
const Name = "optr-sandbox-launcher"

// programs are the executable started as the launcher and optr's own.
type programs struct {
	launcher, optr string
}

// separate reports whether the launcher is not optr itself.
func (p programs) separate() bool { return p.launcher != p.optr }

// located is where this process finds its launcher, looked for once.
var located = sync.OnceValues(func() (programs, error) { return locate(os.Executable) })

// locate finds the launcher: Name in the directory of optr's executable
// (exe, symbolic links resolved), and only there; without one, optr's
// executable itself, which serves as its own launcher (package child),
// as under go run, go install, host mode and in test binaries. Neither
// PATH, the working directory nor any variable is consulted: only what
// installed optr decides which program confines its agents. A file of
// that name that is not an executable is an *UnusableError, not a reason
// to fall back.
func locate(exe func() (string, error)) (programs, error) {
	self, err := exe()
	if err != nil {
		return programs{}, fmt.Errorf("find optr's own executable for the sandbox launcher: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	p := programs{launcher: filepath.Join(filepath.Dir(self), Name), optr: self}
	fi, err := os.Stat(p.launcher)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return programs{launcher: self, optr: self}, nil
	case err != nil:
		return p, &UnusableError{Launcher: p.launcher, Optr: self, Why: err.Error()}
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return p, &UnusableError{Launcher: p.launcher, Optr: self, Why: "it is not an executable file"}
	}
	return p, nil
}

// UnusableError is a launcher beside optr that optr will not start: it is
// from another build (Started), or not an executable file. It holds for
// every launch, so the sandbox stops the run before its first agent.
type UnusableError struct {
	// Launcher and Optr are the two files.
	Launcher, Optr string
	// Why says what is wrong with Launcher.
	Why string
}

func (e *UnusableError) Error() string {
	return fmt.Sprintf("the sandbox launcher %s cannot serve %s: %s; install both from the same release or build, side by side, or remove %s so that optr launches agents through itself",
		e.Launcher, e.Optr, e.Why, e.Launcher)
}
