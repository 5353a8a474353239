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
	"os/exec"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

// Process says how the launcher process itself is created.
type Process struct {
	// NewNet starts it in a user and a network namespace of its own (its
	// uid and gid mapped to themselves, CAP_NET_ADMIN held there only to
	// bring up the loopback interface).
	NewNet bool
	// UID and GID, when UID is not negative, are the unprivileged user
	// the program runs as (optr must be root to ask); supplementary groups
	// are dropped. Negative: optr's own user.
	UID, GID int
	// Sudo, when set, is the sudo that starts the launcher as root for an
	// optr that is not (sudo.go): UID and GID are then the user the
	// program runs as, with no supplementary group — optr's own.
	Sudo string
}

// Launch is one program being started through the launcher.
type Launch struct {
	spec  Spec
	progs programs
	ctl   *net.UnixConn
	child *os.File
	// relay, for a launcher started through sudo, is where optr waits
	// for it to connect instead of handing it child.
	relay *relay
	// lines reads the launcher's messages after its first; caps is what
	// the launcher said it can enforce.
	lines *bufio.Reader
	caps  Capabilities
}

// Capabilities are what a launcher can enforce on this machine, as it
// reports in every message: its Landlock ABI (0: none) and, when it
// cannot install the seccomp layer, why.
type Capabilities struct {
	ABI       int
	NoSeccomp string
}

// Error is a launch the launcher could not carry out: Stage says which
// step ("spec", "maps", "net", "user", "caps", "landlock", "seccomp",
// "reaper", "exec"), Msg the launcher's words. A launcher from another
// build is an *UnusableError instead.
type Error struct {
	Stage, Msg string
}

func (e *Error) Error() string { return e.Stage + ": " + e.Msg }

// Wrap turns cmd, not yet started, into a start of the launcher (Name
// beside optr's executable, else optr's executable: see locate), which
// confines itself as spec says (spec's Path, Args and Env are taken from
// cmd, its Build is this build's) and then starts cmd's program. cmd's
// SysProcAttr (a process group, a parent-death signal) is kept and
// extended as p says; cmd must have no ExtraFiles. After cmd.Start, call
// Started; if Start fails, Close.
func Wrap(cmd *exec.Cmd, spec Spec, p Process) (*Launch, error) {
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("launcher: the command already passes extra files")
	}
	progs, err := located()
	if err != nil {
		return nil, err
	}
	return wrap(cmd, spec, p, progs)
}

// wrap is Wrap with the launcher progs names.
func wrap(cmd *exec.Cmd, spec Spec, p Process, progs programs) (*Launch, error) {
	if p.Sudo != "" {
		return wrapSudo(cmd, spec, p, progs)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("launcher control socket: %w", err)
	}
	parent := os.NewFile(uintptr(fds[0]), "launcher-control")
	fc, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, fmt.Errorf("launcher control socket: %w", err)
	}
	l := &Launch{progs: progs, ctl: fc.(*net.UnixConn), child: os.NewFile(uintptr(fds[1]), "launcher-control")}
	l.spec = p.specFor(cmd, spec)
	cmd.Path = progs.launcher
	cmd.Args = []string{Name}
	cmd.Env = slices.Clone(launcherEnv)
	cmd.ExtraFiles = []*os.File{l.child}
	return l, nil
}

// specFor completes spec for cmd's program (its Path, Args and Env, this
// build) and sets the namespaces and credentials of p on cmd.
func (p Process) specFor(cmd *exec.Cmd, spec Spec) Spec {
	spec.Build = child.Build()
	spec.Path, spec.Args, spec.Env = cmd.Path, cmd.Args, cmd.Env
	if spec.Env == nil {
		spec.Env = []string{}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	p.apply(cmd.SysProcAttr, &spec)
	return spec
}

// launcherEnv is the launcher's own environment (the program gets
// spec.Env): the marker, and one P for its Go runtime. The launcher is one
// thread's work, and each agent starts one: with one P its runtime skips
// reading the cgroup's CPU limit and starts fewer threads, about 0.4 ms
// of CPU less per agent.
var launcherEnv = []string{Marker + "=" + fmt.Sprint(child.ControlFD), "GOMAXPROCS=1"}

// apply sets the namespaces and credentials of p on sys and spec. A root
// optr needs no user namespace for a network namespace of the launcher's
// own; the launcher stays root and starts the program as p's user. An
// unprivileged optr creates a user namespace too and hands the launcher,
// as ambient capabilities there, CAP_NET_ADMIN (for the loopback
// interface) and what it needs to map its own uid and gid to themselves
// (spec.Maps): optr may not write the maps itself, since it is
// non-dumpable and so are the /proc files of the child it forks. The
// launcher clears them before it starts the program.
func (p Process) apply(sys *syscall.SysProcAttr, spec *Spec) {
	spec.UID, spec.GID = -1, -1
	if p.Sudo != "" {
		// sudo's launcher is root: it creates the network namespace itself
		// (relay), and starts the program as p's user.
		spec.UID, spec.GID, spec.Relayed = p.UID, p.GID, true
		return
	}
	if os.Geteuid() == 0 {
		if p.NewNet {
			sys.Cloneflags |= syscall.CLONE_NEWNET
		}
		if p.UID >= 0 {
			spec.UID, spec.GID = p.UID, p.GID
		}
		return
	}
	if p.NewNet {
		sys.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		sys.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID}
		// An unprivileged process may not let a namespace drop the groups
		// it was given: its agents keep its supplementary groups (the
		// seccomp layer keeps them from the sockets those groups open).
		spec.Maps = &IDs{UID: os.Getuid(), GID: os.Getgid()}
	}
}

// Started completes the launch after cmd.Start: it sends the spec and
// waits until the launcher confined itself and started the program (nil),
// or says why it could not (*Error). With NetNamespace the listener is
// the socket the launcher listens on inside the namespace: the proxy
// serves it. Then call Watch (or Close): the launcher reports there what
// its seccomp layer refused. The caller kills the process group on an
// error.
func (l *Launch) Started(ctx context.Context) (ln net.Listener, err error) {
	if l.relay != nil {
		if l.ctl, err = l.relay.accept(ctx); err != nil {
			return nil, err
		}
	} else {
		l.child.Close()
	}
	defer func() {
		if err != nil || l.spec.Probe {
			l.ctl.Close()
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = l.ctl.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(l.ctl).Encode(l.spec); err != nil {
		return nil, l.gone(ctx, err)
	}
	buf, oob := make([]byte, 64<<10), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := l.ctl.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		return nil, l.gone(ctx, err)
	}
	ln, lerr := listenerFrom(oob[:oobn])
	first, rest, _ := bytes.Cut(buf[:n], []byte("\n"))
	var r child.Reply
	if err := json.Unmarshal(first, &r); err != nil {
		return closeAll(ln, fmt.Errorf("launcher: unreadable answer %q: %w", first, err))
	}
	if r.Stage == "build" || r.Build != l.spec.Build {
		return closeAll(ln, l.otherBuild(r.Build))
	}
	l.caps = Capabilities{ABI: r.ABI, NoSeccomp: r.NoSeccomp}
	if !r.OK {
		return closeAll(ln, &Error{Stage: r.Stage, Msg: r.Error})
	}
	if lerr != nil {
		return nil, lerr
	}
	if l.spec.Net == NetNamespace && ln == nil {
		return nil, errors.New("launcher: no listening socket came back from the namespace")
	}
	if l.spec.Probe {
		return ln, nil
	}
	// Then Running, or why the program could not be started.
	l.lines = bufio.NewReader(io.MultiReader(bytes.NewReader(bytes.Clone(rest)), l.ctl))
	r, err = l.next()
	switch {
	case err != nil && ctx.Err() != nil:
		return closeAll(ln, ctx.Err())
	case err != nil:
		return closeAll(ln, fmt.Errorf("launcher: the sandbox launcher ended before the program started: %w", err))
	case !r.Running:
		return closeAll(ln, &Error{Stage: r.Stage, Msg: r.Error})
	}
	return ln, nil
}

// next reads the launcher's next message.
func (l *Launch) next() (child.Reply, error) {
	var r child.Reply
	line, err := readLine(l.lines)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("launcher: unreadable message %q: %w", line, err)
	}
	return r, nil
}

// readLine reads one line of at most the reader's buffer; a longer one is
// read to its end and dropped, an error that does not end the stream.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = r.ReadSlice('\n')
	}
	if err != nil {
		return nil, err
	}
	return nil, errLongLine
}

// errLongLine is a message longer than any the launcher sends.
var errLongLine = errors.New("launcher: a message too long")

// Watch calls fn with each thing the launcher's seccomp layer refuses,
// until the launcher ends; then it releases the control socket. Call it
// once after Started succeeded (it returns when the program and all it
// started have ended), or Close instead. It reads to the end whatever
// comes: a launcher whose reports went unread would block the program's
// next refused call.
func (l *Launch) Watch(fn func(Event)) {
	defer l.ctl.Close()
	watch(l.lines, fn)
}

// watch reads replies from lines and calls fn with their events, until
// the stream ends.
func watch(lines *bufio.Reader, fn func(Event)) {
	for {
		line, err := readLine(lines)
		if errors.Is(err, errLongLine) {
			continue
		}
		if err != nil {
			return
		}
		var r child.Reply
		if json.Unmarshal(line, &r) == nil && r.Event != nil {
			fn(*r.Event)
		}
	}
}

// Capabilities is what the launcher said it can enforce, once it
// answered (Started).
func (l *Launch) Capabilities() Capabilities { return l.caps }

// otherBuild is the error of a launcher of another build: it followed
// nothing in the Spec (or, should it have, the caller kills it).
func (l *Launch) otherBuild(theirs string) error {
	return &UnusableError{Launcher: l.progs.launcher, Optr: l.progs.optr,
		Why: fmt.Sprintf("it is from another build (the launcher is %q, optr %q)", theirs, l.spec.Build)}
}

// Close releases the launch's sockets when cmd.Start failed, or instead
// of Watch.
func (l *Launch) Close() {
	if l.relay != nil {
		l.relay.close()
	}
	if l.child != nil {
		l.child.Close()
	}
	if l.ctl != nil {
		l.ctl.Close()
	}
}

// gone explains a launcher that ended without answering.
func (l *Launch) gone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil || errors.Is(err, io.EOF) {
		return errors.New("launcher: the sandbox launcher ended before it answered")
	}
	return fmt.Errorf("launcher: %w", err)
}

func closeAll(ln net.Listener, err error) (net.Listener, error) {
	if ln != nil {
		ln.Close()
	}
	return nil, err
}

// listenerFrom turns a descriptor passed in oob into a listener.
func listenerFrom(oob []byte) (net.Listener, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("launcher: bad control message: %v", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("launcher: bad descriptor message: %v", err)
	}
	f := os.NewFile(uintptr(fds[0]), "proxy-listener")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("launcher: the namespace's listening socket: %w", err)
	}
	return ln, nil
}

// Probe starts the launcher as spec and p say, up to the exec, which it
// skips: nil means this kernel lets optr launch that way. It also returns
// what the launcher can enforce here (known when it answered at all).
func Probe(ctx context.Context, spec Spec, p Process) (Capabilities, error) {
	spec.Probe = true
	cmd := exec.CommandContext(ctx, "/bin/true") // replaced by the launcher; never run
	l, err := Wrap(cmd, spec, p)
	if err != nil {
		return Capabilities{}, err
	}
	// What sudo says when it refuses ("a password is required").
	var stderr bytes.Buffer
	if p.Sudo != "" {
		cmd.Stderr = &stderr
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		return Capabilities{}, err
	}
	ln, err := l.Started(ctx)
	if ln != nil {
		ln.Close()
	}
	werr := cmd.Wait()
	if err == nil {
		err = werr
	}
	if said, _, _ := bytes.Cut(bytes.TrimSpace(stderr.Bytes()), []byte("\n")); err != nil && len(said) > 0 {
		err = fmt.Errorf("%w: %.200s", err, said)
	}
	return l.caps, err
}
