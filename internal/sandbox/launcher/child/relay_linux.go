package child

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// relay is the launcher's first step when a non-root optr starts it
// through sudo, which runs it as root with a reset environment and every
// descriptor from 3 on closed (architecture §4.14: agents never keep the
// runner's supplementary groups). Its arguments say what the environment
// and descriptor 3 would have: the path of the Unix socket optr listens
// on for this launch, in a directory only optr's user (and root) may
// enter, and whether the launcher runs in a network namespace of its own.
// It connects there, puts the connection at ControlFD, creates the
// namespace (root needs no user namespace for one) and executes the
// launcher again, which then runs as it does for a root optr: it starts
// the program as optr's user with no supplementary group. The namespace
// is this thread's, and execve keeps the calling thread's: the whole
// launcher lives in it. relay returns only on an error.
func relay(socket string, netns bool) error {
	runtime.LockOSThread()
	if os.Geteuid() != 0 {
		return errors.New("the relay runs as root (under sudo) only")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: socket}); err != nil {
		return fmt.Errorf("connect to optr at %s: %w", socket, err)
	}
	if fd != ControlFD {
		if err := unix.Dup3(fd, ControlFD, 0); err != nil {
			return fmt.Errorf("control socket: %w", err)
		}
	} else if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	// sudo's child: it dies with sudo, which dies with optr's process
	// group. The launcher sets its own again (SIGTERM) once it runs.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return err
	}
	if netns {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("network namespace: %w", err)
		}
	}
	return unix.Exec(self, []string{self}, []string{Marker + "=" + fmt.Sprint(ControlFD), "GOMAXPROCS=1"})
}
