package launcher

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

// ShimMarker is the variable that makes a process a shim: its value is the
// path of the Unix socket on which optr hands it the confinement.
const ShimMarker = "OPTR_SANDBOX_SHIM"

// shimRequest is what optr sends the shim: the program to start in its
// place, and how to confine it.
type shimRequest struct {
	Path    string  `json:"path"`
	Spec    Spec    `json:"spec"`
	Process Process `json:"process"`
}

// Delegation is the confined start of a program that a library starts
// itself, with its own os/exec and no hook between fork and exec: the
// Copilot SDK starts the Copilot CLI that way. The library is handed
// optr's own executable (Path) and an extra variable (Env) instead of the
// program; so started, optr runs as a shim, which connects to optr, gets
// the program and its confinement, and starts the program through the
// launcher exactly as Wrap does, with the arguments, environment, working
// directory and standard streams the library gave the shim. The shim stays
// the launcher's parent; when the shim ends (the library killed it), the
// launcher's parent-death signal ends the program and everything below it.
type Delegation struct {
	// Path is what the library must start instead of the program.
	Path string
	// Env is added to the environment the library gives it.
	Env []string

	dir   string
	ln    *net.UnixListener
	req   shimRequest
	conn  *net.UnixConn
	lines *bufio.Reader
}

// Delegate prepares the confined start of program by a library: spec and
// p as for Wrap. Hand the library Path and Env, then call Started once it
// started them; Close in every case.
func Delegate(program string, spec Spec, p Process) (*Delegation, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find optr's own executable for the sandbox shim: %w", err)
	}
	// A directory only optr's user may enter: nothing but the shim this
	// library starts can connect before Started accepts it once and
	// removes the socket.
	dir, err := os.MkdirTemp("", "optr-shim-")
	if err != nil {
		return nil, fmt.Errorf("sandbox shim: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox shim: listen: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	return &Delegation{
		Path: self, Env: []string{ShimMarker + "=" + sock},
		dir: dir, ln: ln, req: shimRequest{Path: program, Spec: spec, Process: p},
	}, nil
}

// Started waits until the shim the library started connects, hands it the
// program and its confinement, and returns what Launch.Started returns:
// the namespace's listening socket, for the proxy, or why the launch
// failed (an *Error). Then call Watch, or Close. A library that never
// starts the shim keeps it waiting until ctx ends or Close.
func (d *Delegation) Started(ctx context.Context) (ln net.Listener, err error) {
	stop := context.AfterFunc(ctx, func() { _ = d.ln.SetDeadline(time.Now()) })
	conn, err := d.ln.AcceptUnix()
	stop()
	d.ln.Close()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("sandbox shim: the program's library did not start it: %w", err)
	}
	defer func() {
		if err != nil {
			conn.Close()
		}
	}()
	if err := samePeer(conn); err != nil {
		return nil, err
	}
	stop = context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(d.req); err != nil {
		return nil, fmt.Errorf("sandbox shim: %w", err)
	}
	buf, oob := make([]byte, 64<<10), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errors.New("sandbox shim: the shim ended before it answered")
	}
	ln, lerr := listenerFrom(oob[:oobn])
	first, rest, _ := bytes.Cut(buf[:n], []byte("\n"))
	var r child.Reply
	if err := json.Unmarshal(first, &r); err != nil {
		return closeAll(ln, fmt.Errorf("sandbox shim: unreadable answer %q: %w", first, err))
	}
	if !r.OK {
		return closeAll(ln, &Error{Stage: r.Stage, Msg: r.Error})
	}
	if lerr != nil {
		return nil, lerr
	}
	d.conn = conn
	d.lines = bufio.NewReader(io.MultiReader(bytes.NewReader(bytes.Clone(rest)), conn))
	return ln, nil
}

// Watch calls fn with each thing the program's seccomp layer refuses,
// until the shim ends. Call it once after Started succeeded.
func (d *Delegation) Watch(fn func(Event)) {
	if d.conn == nil {
		return
	}
	defer d.conn.Close()
	for {
		line, err := d.lines.ReadSlice('\n')
		if err != nil {
			return
		}
		var r child.Reply
		if json.Unmarshal(line, &r) == nil && r.Event != nil {
			fn(*r.Event)
		}
	}
}

// samePeer refuses a connection from a process of another user.
func samePeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("sandbox shim: peer credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("sandbox shim: a process of uid %d connected, not optr's shim", cred.Uid)
	}
	return nil
}

// Close releases the delegation's listening socket and directory (a
// Watch ends with the shim).
func (d *Delegation) Close() {
	d.ln.Close()
	os.RemoveAll(d.dir)
}
