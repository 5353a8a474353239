package child

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Servers of the program's own. Without a network namespace, loopback is
// the host's: the seccomp layer connects a program to its proxy only, so
// a test suite that starts a server on 127.0.0.1 and connects to it would
// fail. A connect to a loopback address is let through when a process of
// the launcher's own (the program or a descendant) listens there, and no
// other process's socket could take the connection — the listening
// sockets as the kernel lists them (/proc/net/tcp, tcp6), each found by
// its inode among those processes' descriptors. The launcher connects to
// the address it read, as for the proxy. What is not checked: a server of
// the program's closed, and a process outside bound the same port, in
// the moment between the check and the connect — nothing the program can
// arrange from inside.

// loopbackTarget reports whether a connect to ip (4 or 16 bytes) reaches
// this machine: 127.0.0.0/8, ::1, the unspecified addresses, and
// IPv4-mapped loopback.
func loopbackTarget(ip []byte) bool {
	if len(ip) == 16 {
		if bytes.Equal(ip[:12], []byte{10: 0xff, 11: 0xff}) {
			ip = ip[12:]
		} else {
			return bytes.Equal(ip, make([]byte, 16)) || bytes.Equal(ip, append(make([]byte, 15), 1))
		}
	}
	return ip[0] == 127 || bytes.Equal(ip, []byte{0, 0, 0, 0})
}

// ownListener reports whether the connection to TCP port at ip, which
// loopbackTarget accepted, can only reach a process of the launcher's
// own: some socket listens there, and every one that could take it is
// theirs. (A foreign one that might not — an IPv6 wildcard socket may be
// V6ONLY, which /proc does not say — refuses it as well.)
func (n *notifier) ownListener(ip []byte, port int) bool {
	inodes := listening(ip, port)
	if len(inodes) == 0 {
		return false
	}
	// Sockets found before need no search: a socket's inode number is not
	// another's while it exists (a test suite connects to its server
	// thousands of times; the search reads every process's parent).
	for ino := range inodes {
		if n.ownSockets[ino] {
			delete(inodes, ino)
		}
	}
	if len(inodes) == 0 {
		return true
	}
	found := map[string]bool{}
	for _, pid := range n.descendants() {
		fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name())
			if err != nil {
				continue
			}
			if ino, ok := strings.CutPrefix(link, "socket:["); ok {
				ino = strings.TrimSuffix(ino, "]")
				if inodes[ino] {
					found[ino] = true
				}
			}
		}
	}
	if len(found) < len(inodes) {
		return false
	}
	if n.ownSockets == nil || len(n.ownSockets) > 1<<12 {
		n.ownSockets = map[string]bool{}
	}
	for ino := range found {
		n.ownSockets[ino] = true
	}
	return true
}

// descendants are the launcher's descendants, from every process's
// parent as /proc lists it.
func (n *notifier) descendants() []int {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if ppid := ppidOf(pid); ppid > 0 {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := children[n.launcher]
	for len(queue) > 0 && len(out) < 1<<16 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out
}

// listening are the inodes of the TCP sockets that listen on port and
// may take a connection to ip: bound to it, or to the unspecified address
// of its family, or, for IPv4, to the IPv6 one (which takes IPv4 unless
// it is V6ONLY). The kernel lists them through sock_diag, which, unlike
// /proc/net/tcp, does not format every connection of the machine.
func listening(ip []byte, port int) map[string]bool {
	v4 := ip
	if len(ip) == 16 && bytes.Equal(ip[:12], []byte{10: 0xff, 11: 0xff}) {
		v4 = ip[12:]
	}
	out := map[string]bool{}
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		for _, l := range listeners(family) {
			if l.port != port {
				continue
			}
			local := l.addr
			switch {
			case len(local) == 4 && len(v4) == 4 && (bytes.Equal(local, v4) || bytes.Equal(local, []byte{0, 0, 0, 0})):
			case len(local) == 16 && bytes.Equal(local, make([]byte, 16)):
			case len(local) == 16 && (bytes.Equal(local, ip) || len(v4) == 4 && bytes.Equal(local, append([]byte{10: 0xff, 11: 0xff}, v4...))):
			default:
				continue
			}
			out[strconv.FormatUint(uint64(l.inode), 10)] = true
		}
	}
	return out
}

// listener is a listening TCP socket.
type listener struct {
	addr  []byte
	port  int
	inode uint32
}

// The layout of struct inet_diag_req_v2 and struct inet_diag_msg
// (linux/inet_diag.h), which golang.org/x/sys does not define.
const (
	sizeofDiagReq = 56
	sizeofDiagMsg = 72
	tcpListen     = 10
)

// listeners are the listening TCP sockets of family in this network
// namespace (nil when the kernel will not say).
func listeners(family uint8) []listener {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	req := make([]byte, unix.SizeofNlMsghdr+sizeofDiagReq)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	body := req[unix.SizeofNlMsghdr:]
	body[0], body[1] = family, unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(body[4:], 1<<tcpListen)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil
	}
	var out []listener
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return out
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return out
		}
		for _, m := range msgs {
			switch {
			case m.Header.Type == syscall.NLMSG_DONE, m.Header.Type == syscall.NLMSG_ERROR:
				return out
			case m.Header.Type != unix.SOCK_DIAG_BY_FAMILY || len(m.Data) < sizeofDiagMsg:
				continue
			}
			d := m.Data
			addr := d[8:24]
			if d[0] == unix.AF_INET {
				addr = d[8:12]
			}
			out = append(out, listener{addr: bytes.Clone(addr), port: int(binary.BigEndian.Uint16(d[4:6])),
				inode: binary.NativeEndian.Uint32(d[68:72])})
		}
	}
}
