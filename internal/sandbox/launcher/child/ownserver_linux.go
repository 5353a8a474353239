package child

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
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
				delete(inodes, strings.TrimSuffix(ino, "]"))
			}
		}
	}
	return len(inodes) == 0
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
// it is V6ONLY).
func listening(ip []byte, port int) map[string]bool {
	v4 := ip
	if len(ip) == 16 && bytes.Equal(ip[:12], []byte{10: 0xff, 11: 0xff}) {
		v4 = ip[12:]
	}
	out := map[string]bool{}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if i == 0 || len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, ok := strings.Cut(f[1], ":")
			if !ok {
				continue
			}
			if lp, err := strconv.ParseUint(p, 16, 16); err != nil || int(lp) != port {
				continue
			}
			local := procAddr(addr)
			switch {
			case len(local) == 4 && len(v4) == 4 && (bytes.Equal(local, v4) || bytes.Equal(local, []byte{0, 0, 0, 0})):
			case len(local) == 16 && bytes.Equal(local, make([]byte, 16)):
			case len(local) == 16 && (bytes.Equal(local, ip) || len(v4) == 4 && bytes.Equal(local, append([]byte{10: 0xff, 11: 0xff}, v4...))):
			default:
				continue
			}
			out[f[9]] = true
		}
	}
	return out
}

// procAddr reads an address as /proc/net/tcp writes it: 32-bit words in
// hexadecimal, each in the machine's byte order.
func procAddr(hex string) []byte {
	if len(hex) != 8 && len(hex) != 32 {
		return nil
	}
	out := make([]byte, 0, len(hex)/2)
	for i := 0; i < len(hex); i += 8 {
		w, err := strconv.ParseUint(hex[i:i+8], 16, 32)
		if err != nil {
			return nil
		}
		out = binary.NativeEndian.AppendUint32(out, uint32(w))
	}
	return out
}
