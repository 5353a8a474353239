package child

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A notifier is the supervisor of the seccomp layer: it answers the calls
// the filter hands to the launcher (connect, and with Signals the signal
// calls) for the program and every descendant, on a thread of the
// launcher's own that the filter does not apply to.
//
// Why by hand: seccomp user notification is a few ioctls on one
// descriptor, and no maintained pure-Go library serves it (libseccomp's
// Go bindings need cgo; optr is a static binary).
type notifier struct {
	fd       int
	launcher int // the launcher's pid: it and its descendants are the program's own
	// uid and gid are the program's user, when the launcher is root and
	// starts it as another (-1: the launcher's own).
	uid, gid  int
	tcp       []string // allowed TCP addresses, "ip:port"
	anyTCP    bool     // every address (a network namespace holds them)
	unixDirs  []string
	unixPaths []string
	report    func(Event)
	// ownSockets are the inodes of listening sockets found to be the
	// program's own (ownListener).
	ownSockets map[string]bool
}

func newNotifier(fd int, spec Spec, report func(Event)) *notifier {
	r := spec.Seccomp
	n := &notifier{fd: fd, launcher: os.Getpid(), uid: spec.UID, gid: spec.GID,
		tcp: r.Connect, anyTCP: spec.Net == NetNamespace && len(r.Connect) == 0,
		unixDirs: r.UnixDirs, unixPaths: r.UnixPaths, report: report}
	if os.Geteuid() != 0 {
		n.uid, n.gid = -1, -1
	}
	return n
}

// serve answers notifications until the descriptor fails (the launcher
// is ending).
func (n *notifier) serve() {
	// Never unlocked: this thread alone takes the program's file-system
	// credentials, so that it may read the program's memory and /proc
	// files (a root launcher in Docker has no CAP_SYS_PTRACE) and opens
	// Unix sockets with no more right than the program.
	runtime.LockOSThread()
	if n.uid >= 0 {
		if _, _, errno := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); errno != 0 {
			return
		}
		unix.Setfsgid(n.gid)
		unix.Setfsuid(n.uid)
	}
	for {
		var req notif
		if err := ioctl(n.fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // a signal here, or the caller gave up before we read it
			}
			return
		}
		n.answer(&req)
	}
}

// answer decides one call.
func (n *notifier) answer(req *notif) {
	switch req.Data.Nr {
	case unix.SYS_CONNECT:
		n.connect(req)
	case unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO:
		n.signal(req)
	case unix.SYS_FCNTL:
		n.setown(req)
	default:
		n.fail(req, unix.ENOSYS)
	}
}

// respond answers req: val, or the error errno.
func (n *notifier) respond(req *notif, val int64, errno unix.Errno, flags uint32) {
	resp := notifResp{ID: req.ID, Val: val, Error: -int32(errno), Flags: flags}
	_ = ioctl(n.fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

func (n *notifier) fail(req *notif, errno unix.Errno) { n.respond(req, 0, errno, 0) }

// proceed lets the call run as the program made it: only for calls whose
// every argument that matters is a value, not memory the program could
// change after the check.
func (n *notifier) proceed(req *notif) {
	n.respond(req, 0, 0, unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE)
}

// refuse reports ev and fails req with errno: reported first, so that
// the report is out before the program goes on (and maybe ends, and the
// launcher with it).
func (n *notifier) refuse(req *notif, errno unix.Errno, ev Event) {
	n.report(ev)
	n.fail(req, errno)
}

// valid reports whether req still waits: its pid is still the caller.
func (n *notifier) valid(req *notif) bool {
	id := req.ID
	return ioctl(n.fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// errGone is a caller that stopped waiting (killed, or interrupted).
var errGone = errors.New("the caller is gone")

// openProc opens the caller's /proc/<pid>/<name> and checks that the pid
// still is the caller's (it could have died and the pid been reused).
func (n *notifier) openProc(req *notif, name string, flags int) (int, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(int(req.Pid))+"/"+name, flags|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if !n.valid(req) {
		unix.Close(fd)
		return -1, errGone
	}
	return fd, nil
}

// readMem reads size bytes of the caller's memory at addr.
func (n *notifier) readMem(req *notif, addr uint64, size int) ([]byte, error) {
	fd, err := n.openProc(req, "mem", unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, size)
	got, err := unix.Pread(fd, buf, int64(addr))
	if err != nil || got != size {
		return nil, unix.EFAULT
	}
	return buf, nil
}

// sizeofSockaddrStorage is the longest address connect(2) takes, that of
// struct sockaddr_storage (golang.org/x/sys's RawSockaddrAny is shorter).
const sizeofSockaddrStorage = 128

// connect decides a connect(fd, addr, len): to an allowed address, the
// launcher connects and puts its socket in the place of fd.
func (n *notifier) connect(req *notif) {
	args := req.Data.Args
	fd, size := int(int32(args[0])), int(int32(args[2]))
	if size < 2 || size > sizeofSockaddrStorage {
		n.fail(req, unix.EINVAL)
		return
	}
	raw, err := n.readMem(req, args[1], size)
	switch {
	case errors.Is(err, errGone):
		return
	case errors.Is(err, unix.EFAULT):
		n.fail(req, unix.EFAULT)
		return
	case err != nil:
		// The caller's memory cannot be read (it made itself
		// non-dumpable): nothing can be checked, so nothing connects.
		n.refuse(req, unix.EACCES, Event{Kind: "connect", Addr: "?", Reason: "the address could not be read: " + err.Error()})
		return
	}
	var sa unix.Sockaddr
	var addr string
	var ip []byte
	var port int
	family := int(binary.NativeEndian.Uint16(raw))
	switch family {
	case unix.AF_INET:
		if size < unix.SizeofSockaddrInet4 {
			n.fail(req, unix.EINVAL)
			return
		}
		s := &unix.SockaddrInet4{Port: int(binary.BigEndian.Uint16(raw[2:4]))}
		copy(s.Addr[:], raw[4:8])
		sa, addr, ip, port = s, ip4(s.Addr[:])+":"+strconv.Itoa(s.Port), s.Addr[:], s.Port
	case unix.AF_INET6:
		if size < 24 {
			n.fail(req, unix.EINVAL)
			return
		}
		s := &unix.SockaddrInet6{Port: int(binary.BigEndian.Uint16(raw[2:4]))}
		copy(s.Addr[:], raw[8:24])
		if size >= unix.SizeofSockaddrInet6 {
			s.ZoneId = binary.NativeEndian.Uint32(raw[24:28])
		}
		sa, addr, ip, port = s, ip6(s.Addr)+":"+strconv.Itoa(s.Port), s.Addr[:], s.Port
	case unix.AF_UNIX:
		n.connectUnix(req, fd, raw[2:])
		return
	default:
		n.fail(req, unix.EAFNOSUPPORT)
		return
	}
	if !n.anyTCP && !slices.Contains(n.tcp, addr) && !(loopbackTarget(ip) && n.ownListener(ip, port)) {
		n.refuse(req, unix.EACCES, Event{Kind: "connect", Addr: addr,
			Reason: "a direct connection: agents reach the network only through optr's proxy (HTTPS_PROXY)"})
		return
	}
	n.inject(req, fd, family, []int{unix.SOCK_STREAM}, sa)
}

// connectUnix decides a connect to a Unix socket: optr's own, or one the
// program's user bound in the program's own directories; never an
// abstract one.
func (n *notifier) connectUnix(req *notif, fd int, path []byte) {
	if len(path) == 0 {
		n.fail(req, unix.EINVAL)
		return
	}
	if path[0] == 0 {
		n.refuse(req, unix.EACCES, Event{Kind: "connect", Addr: "unix:@" + printable(path[1:]),
			Reason: "an abstract Unix socket: agents may connect to none"})
		return
	}
	if i := slices.Index(path, 0); i >= 0 {
		path = path[:i]
	}
	name := string(path)
	dir := unix.AT_FDCWD
	if !strings.HasPrefix(name, "/") {
		d, err := n.openProc(req, "cwd", unix.O_PATH|unix.O_DIRECTORY)
		if errors.Is(err, errGone) {
			return
		}
		if err != nil {
			n.refuse(req, unix.EACCES, Event{Kind: "connect", Addr: "unix:" + name, Reason: "the working directory could not be read: " + err.Error()})
			return
		}
		defer unix.Close(d)
		dir = d
	}
	// Resolved as connect resolves it (symbolic links followed); the
	// socket is then reached through this descriptor, so what was checked
	// is what is connected.
	sock, err := unix.Openat(dir, name, unix.O_PATH|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		n.fail(req, errnoOf(err)) // nothing there
		return
	case err != nil:
		n.refuse(req, errnoOf(err), Event{Kind: "connect", Addr: "unix:" + name, Reason: "a Unix socket the agent may not reach"})
		return
	}
	defer unix.Close(sock)
	var st unix.Stat_t
	if err := unix.Fstat(sock, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		n.fail(req, unix.ECONNREFUSED)
		return
	}
	via := "/proc/self/fd/" + strconv.Itoa(sock)
	real, err := os.Readlink(via)
	if err != nil {
		n.fail(req, unix.ECONNREFUSED)
		return
	}
	if why := n.unixRefused(real, &st); why != "" {
		n.refuse(req, unix.EACCES, Event{Kind: "connect", Addr: "unix:" + real, Reason: why})
		return
	}
	n.inject(req, fd, unix.AF_UNIX, []int{unix.SOCK_STREAM, unix.SOCK_SEQPACKET}, &unix.SockaddrUnix{Name: via})
}

// unixRefused says why the socket at real (st its status) is not the
// program's to connect to, "" when it is.
func (n *notifier) unixRefused(real string, st *unix.Stat_t) string {
	if slices.Contains(n.unixPaths, real) {
		return ""
	}
	own := n.uid
	if own < 0 {
		own = os.Getuid()
	}
	for _, d := range n.unixDirs {
		if real == d || strings.HasPrefix(real, strings.TrimSuffix(d, "/")+"/") {
			if int(st.Uid) != own {
				return "a Unix socket in the agent's directory that its user did not bind"
			}
			return ""
		}
	}
	return "a Unix socket outside the agent's own directories"
}

// inject connects a socket of family to sa (trying each type in turn,
// for a server of another type) and puts it in the caller's place of fd,
// with fd's flags, then answers the connect with success.
func (n *notifier) inject(req *notif, fd, family int, types []int, sa unix.Sockaddr) {
	flags, err := n.socketFlags(req, fd)
	if errors.Is(err, errGone) {
		return
	}
	if err != nil {
		n.fail(req, errnoOf(err))
		return
	}
	s := -1
	for _, typ := range types {
		if s, err = unix.Socket(family, typ|unix.SOCK_CLOEXEC, 0); err != nil {
			break
		}
		if err = unix.Connect(s, sa); err == nil || !errors.Is(err, unix.EPROTOTYPE) {
			break
		}
		unix.Close(s)
		s = -1
	}
	if err != nil {
		if s >= 0 {
			unix.Close(s)
		}
		n.fail(req, errnoOf(err))
		return
	}
	defer unix.Close(s)
	if flags&unix.O_NONBLOCK != 0 {
		_ = unix.SetNonblock(s, true)
	}
	// Put in place first, answered second: SECCOMP_ADDFD_FLAG_SEND would
	// answer with the descriptor's number, and connect returns 0.
	add := notifAddfd{ID: req.ID, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, Srcfd: uint32(s), Newfd: uint32(fd),
		NewfdFlags: uint32(flags & unix.O_CLOEXEC)}
	if err := ioctl(n.fd, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&add)); err != nil {
		return // the caller stopped waiting: it retries, or is gone
	}
	n.respond(req, 0, 0, 0)
}

// socketFlags reads the file status and descriptor flags of the caller's
// fd (O_NONBLOCK, O_CLOEXEC), which must be a socket.
func (n *notifier) socketFlags(req *notif, fd int) (int, error) {
	link, err := os.Readlink("/proc/" + strconv.Itoa(int(req.Pid)) + "/fd/" + strconv.Itoa(fd))
	if err != nil {
		return 0, unix.EBADF
	}
	if !strings.HasPrefix(link, "socket:") {
		return 0, unix.ENOTSOCK
	}
	f, err := n.openProc(req, "fdinfo/"+strconv.Itoa(fd), unix.O_RDONLY)
	if err != nil {
		return 0, err
	}
	defer unix.Close(f)
	var buf [512]byte
	got, _ := unix.Read(f, buf[:])
	for line := range strings.Lines(string(buf[:max(got, 0)])) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil {
				return 0, unix.EBADF
			}
			return int(flags), nil
		}
	}
	return 0, unix.EBADF
}

// errnoOf is err's errno, EACCES when it has none.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EACCES
}

// ip4 formats an IPv4 address.
func ip4(a []byte) string {
	return strconv.Itoa(int(a[0])) + "." + strconv.Itoa(int(a[1])) + "." + strconv.Itoa(int(a[2])) + "." + strconv.Itoa(int(a[3]))
}

// ip6 formats an IPv6 address in brackets, an IPv4-mapped one as IPv4
// (what it connects to), so that optr's allowed "127.0.0.1:port" matches
// either form.
func ip6(a [16]byte) string {
	if [12]byte(a[:12]) == [12]byte{10: 0xff, 11: 0xff} {
		return ip4(a[12:])
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(binary.BigEndian.Uint16(a[i:])), 16))
	}
	b.WriteByte(']')
	return b.String()
}

// printable shows an abstract socket's name, its zero bytes as @.
func printable(name []byte) string {
	return strings.Map(func(r rune) rune {
		if r == 0 {
			return '@'
		}
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, string(name))
}
