package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

// A launcher started through sudo (Process.Sudo). sudo runs it as root,
// so that it can start the program as optr's own user without the
// supplementary groups optr's user has — the hosted runner's `docker`,
// which opens docker.sock, and any group that can read a file — which the
// kernel lets only root drop (architecture §4.14). sudo resets the
// environment and closes every descriptor from 3 on, so the launcher
// cannot be handed its control socket: it connects to one instead, a
// Unix socket optr listens on for this launch alone, in a directory of
// its own that only its user and root may enter, and optr takes the
// connection only from root (SO_PEERCRED). sudo runs with -n: it never
// asks for a password, it fails.

// wrapSudo is wrap for p.Sudo: cmd starts sudo, which starts the
// launcher's relay (child.RelayArg) as root.
func wrapSudo(cmd *exec.Cmd, spec Spec, p Process, progs programs) (*Launch, error) {
	r, err := listenRelay()
	if err != nil {
		return nil, err
	}
	l := &Launch{progs: progs, relay: r}
	l.spec = p.specFor(cmd, spec)
	r.cmd = cmd
	netns := "-"
	if p.NewNet {
		netns = child.NetNamespace
	}
	cmd.Path = p.Sudo
	cmd.Args = []string{p.Sudo, "-n", "--", progs.launcher, child.RelayArg, r.path, netns}
	cmd.Env = []string{}
	return l, nil
}

// relay is the socket a launcher started through sudo connects to.
type relay struct {
	dir, path string
	ln        *net.UnixListener
	cmd       *exec.Cmd // sudo, once started
}

// listenRelay listens in a new directory of optr's own (mode 0700).
func listenRelay() (*relay, error) {
	dir, err := os.MkdirTemp("", "optr-launch-")
	if err == nil && len(dir) > 90 {
		// A Unix socket's path has at most 107 bytes.
		os.Remove(dir)
		dir, err = os.MkdirTemp("/tmp", "optr-launch-")
	}
	if err != nil {
		return nil, fmt.Errorf("launcher control socket: %w", err)
	}
	path := filepath.Join(dir, "control")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("launcher control socket: %w", err)
	}
	return &relay{dir: dir, path: path, ln: ln}, nil
}

// accept waits for the launcher to connect, or for sudo to end without
// it (a password asked for, a user not allowed: what sudo said is on its
// standard error), or for ctx; it then removes the socket.
func (r *relay) accept(ctx context.Context) (*net.UnixConn, error) {
	defer r.close()
	stop := context.AfterFunc(ctx, func() { r.ln.SetDeadline(time.Now()) })
	defer stop()
	ended, release := r.sudoEnded()
	defer release()
	for {
		c, err := r.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			select {
			case <-ended:
				return nil, errors.New("launcher: sudo ended before the sandbox launcher started")
			default:
			}
			return nil, fmt.Errorf("launcher: wait for the sandbox launcher under sudo: %w", err)
		}
		if root, err := fromRoot(c); err != nil || !root {
			c.Close()
			continue // not the launcher: only root is
		}
		return c, nil
	}
}

// sudoEnded returns a channel closed once sudo ended, when it also stops
// the accept; release lets go of it.
func (r *relay) sudoEnded() (ended <-chan struct{}, release func()) {
	ch := make(chan struct{})
	if r.cmd == nil || r.cmd.Process == nil {
		return ch, func() {}
	}
	pidfd, err := unix.PidfdOpen(r.cmd.Process.Pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return ch, func() {}
	}
	f := os.NewFile(uintptr(pidfd), "sudo")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return ch, func() {}
	}
	go func() {
		// A pidfd becomes readable when its process ends; Read returns
		// early when release closes it.
		err := rc.Read(func(fd uintptr) bool {
			var info unix.Siginfo
			err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
			return err != nil || info.Signo != 0
		})
		if err == nil {
			close(ch)
			r.ln.SetDeadline(time.Now())
		}
	}()
	return ch, func() { f.Close() }
}

// fromRoot reports whether c's peer is root.
func fromRoot(c *net.UnixConn) (bool, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return false, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return false, err
	}
	if cerr != nil {
		return false, cerr
	}
	return cred.Uid == 0, nil
}

// close removes the socket and its directory.
func (r *relay) close() {
	r.ln.Close()
	os.RemoveAll(r.dir)
}
