package child

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp layer (architecture §4.14). Where the kernel gives optr no
// network namespace — Docker's default seccomp profile refuses one, and
// so does Ubuntu's AppArmor for unprivileged users — Landlock alone
// cannot hold egress: its TCP rules (ABI 4) allow a port on every
// address, and UDP, ICMP ping sockets, MPTCP and Unix sockets by path
// stay open. So the launcher installs, after no_new_privs and Landlock,
// a seccomp filter of its own (which needs no capability) that
//
//   - lets a process create only AF_UNIX stream and seqpacket sockets and
//     TCP sockets over IPv4 and IPv6 (every other family, type and
//     protocol is EPERM: UDP and so DNS, ICMP ping, MPTCP, raw, packet,
//     netlink, vsock), and no io_uring;
//   - refuses sendto with an address and TCP fast open (MSG_FASTOPEN),
//     the ways to send without connect;
//   - hands every connect(2) to the launcher (seccomp user notification):
//     the launcher reads the address, and connects only to what the Spec
//     allows, itself, then puts its connected socket in place of the
//     program's (SECCOMP_IOCTL_NOTIF_ADDFD) — so the address it checked
//     is the address connected, whatever the program changes meanwhile;
//   - with Signals, hands kill, tkill, tgkill and the sigqueue calls, and
//     F_SETOWN, to the launcher, which lets them through only towards its
//     own descendants: the scoping Landlock gives from ABI 6 on.
//   - refuses TIOCSTI, which would type into optr's terminal.

// Return values of a filter.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retNotify = unix.SECCOMP_RET_USER_NOTIF
	// A call of another architecture (a 32-bit program) ends the process:
	// the filter's rules are written for the native calls.
	retForeign = unix.SECCOMP_RET_KILL_PROCESS
)

// fioSetown is FIOSETOWN, F_SETOWN as an ioctl (asm-generic/sockios.h),
// which golang.org/x/sys does not define.
const fioSetown = 0x8901

// retErrno is a refusal with errno e.
func retErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// sockType compares the type argument i of socket(2) without its
// SOCK_NONBLOCK and SOCK_CLOEXEC flags.
func sockType(i int, t uint32) Arg {
	return Arg{Index: i, Op: MaskedEq, Mask: 0xf, Value: uint64(t)}
}

// flagSet holds when argument i has flag set.
func flagSet(i int, flag uint64) Arg {
	return Arg{Index: i, Op: MaskedEq, Mask: flag, Value: flag}
}

// rules are the seccomp layer's rules; signals adds the scoping of
// signals.
func rules(signals bool) []Rule {
	var r []Rule
	allowSocket := func(nr, family, typ uint32, more ...Arg) {
		r = append(r, Rule{Nrs: []uint32{nr}, Args: append([]Arg{Low32(0, family), sockType(1, typ)}, more...), Action: retAllow})
	}
	for _, nr := range []uint32{unix.SYS_SOCKET, unix.SYS_SOCKETPAIR} {
		allowSocket(nr, unix.AF_UNIX, unix.SOCK_STREAM)
		allowSocket(nr, unix.AF_UNIX, unix.SOCK_SEQPACKET)
	}
	for _, family := range []uint32{unix.AF_INET, unix.AF_INET6} {
		for _, proto := range []uint32{0, unix.IPPROTO_TCP} {
			allowSocket(unix.SYS_SOCKET, family, unix.SOCK_STREAM, Low32(2, proto))
		}
	}
	r = append(r,
		Rule{Nrs: []uint32{unix.SYS_SOCKET, unix.SYS_SOCKETPAIR,
			unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}, Action: retErrno(unix.EPERM)},
		Rule{Nrs: []uint32{unix.SYS_CONNECT}, Action: retNotify},
		Rule{Nrs: []uint32{unix.SYS_SENDTO}, Args: []Arg{{Index: 4, Op: Ne, Value: 0}}, Action: retErrno(unix.EPERM)},
		Rule{Nrs: []uint32{unix.SYS_SENDTO}, Args: []Arg{flagSet(3, unix.MSG_FASTOPEN)}, Action: retErrno(unix.EPERM)},
		Rule{Nrs: []uint32{unix.SYS_SENDMSG}, Args: []Arg{flagSet(2, unix.MSG_FASTOPEN)}, Action: retErrno(unix.EPERM)},
		Rule{Nrs: []uint32{unix.SYS_SENDMMSG}, Args: []Arg{flagSet(3, unix.MSG_FASTOPEN)}, Action: retErrno(unix.EPERM)},
		Rule{Nrs: []uint32{unix.SYS_IOCTL}, Args: []Arg{Low32(1, unix.TIOCSTI)}, Action: retErrno(unix.EPERM)},
	)
	if signals {
		r = append(r,
			// The Go runtime preempts its own threads with SIGURG, many
			// times a second; a SIGURG is harmless wherever it lands (it
			// is ignored unless handled, and Go's handler does nothing
			// unprompted), so it is not worth a round trip.
			Rule{Nrs: []uint32{unix.SYS_TGKILL}, Args: []Arg{Low32(2, uint32(unix.SIGURG))}, Action: retAllow},
			Rule{Nrs: []uint32{unix.SYS_TKILL}, Args: []Arg{Low32(1, uint32(unix.SIGURG))}, Action: retAllow},
			Rule{Nrs: []uint32{unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO}, Action: retNotify},
			// A pidfd can be had for any process (pidfd_open, or a
			// /proc/<pid> directory) and names no pid the filter can see:
			// signals go through kill instead (Go, for one, falls back).
			Rule{Nrs: []uint32{unix.SYS_PIDFD_SEND_SIGNAL}, Action: retErrno(unix.ENOSYS)},
			Rule{Nrs: []uint32{unix.SYS_FCNTL}, Args: []Arg{Low32(1, unix.F_SETOWN)}, Action: retNotify},
			Rule{Nrs: []uint32{unix.SYS_FCNTL}, Args: []Arg{Low32(1, unix.F_SETOWN_EX)}, Action: retErrno(unix.EPERM)},
			Rule{Nrs: []uint32{unix.SYS_IOCTL}, Args: []Arg{Low32(1, fioSetown)}, Action: retErrno(unix.EPERM)},
			Rule{Nrs: []uint32{unix.SYS_IOCTL}, Args: []Arg{Low32(1, unix.SIOCSPGRP)}, Action: retErrno(unix.EPERM)},
		)
	}
	return r
}

// seccompProgram is the layer's filter for this architecture.
func seccompProgram(signals bool) ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, errors.New("optr has no seccomp filter for this architecture (it has for amd64 and arm64)")
	}
	prog, err := Filter(auditArch, x32Bit, rules(signals), retAllow, retForeign)
	if err != nil {
		return nil, err
	}
	return Assemble(prog)
}

// Assemble turns a program into the kernel's instructions.
func Assemble(prog []bpf.Instruction) ([]unix.SockFilter, error) {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	out := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		out[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return out, nil
}

// Install installs filter on the calling thread (lock it), which then
// passes it to every process it starts; flags are SECCOMP_FILTER_FLAG_*.
// With SECCOMP_FILTER_FLAG_NEW_LISTENER it returns the notification
// descriptor, else 0. Without no_new_privs it needs CAP_SYS_ADMIN.
func Install(filter []unix.SockFilter, flags uintptr) (int, error) {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: %w", errno)
	}
	return int(fd), nil
}

// installLayer installs the seccomp layer on the launcher's locked main
// thread and returns the notification descriptor its supervisor serves.
func installLayer(signals bool) (int, error) {
	filter, err := seccompProgram(signals)
	if err != nil {
		return -1, err
	}
	// Once the supervisor has a call, only a fatal signal interrupts the
	// caller's wait (Linux 5.19): a Go program's constant SIGURG would
	// otherwise cancel its connect and have it made again.
	fd, err := Install(filter, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	if errors.Is(err, unix.EINVAL) {
		fd, err = Install(filter, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	}
	if err != nil {
		return -1, fmt.Errorf("install the filter (seccomp user notification needs Linux 5.0): %w", err)
	}
	// SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9) is how a connection reaches
	// the program: a notification that does not exist (id 0) is ENOENT
	// where the kernel has it.
	probe := notifAddfd{ID: 0, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, Srcfd: uint32(fd), Newfd: 0}
	if err := ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&probe)); !errors.Is(err, unix.ENOENT) {
		unix.Close(fd)
		return -1, fmt.Errorf("the kernel lacks SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9): %v", err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}

// The kernel's structures of seccomp user notification (linux/seccomp.h),
// which golang.org/x/sys does not define.
type (
	seccompData struct {
		Nr   int32
		Arch uint32
		IP   uint64
		Args [6]uint64
	}
	notif struct {
		ID    uint64
		Pid   uint32
		Flags uint32
		Data  seccompData
	}
	notifResp struct {
		ID    uint64
		Val   int64
		Error int32
		Flags uint32
	}
	notifAddfd struct {
		ID         uint64
		Flags      uint32
		Srcfd      uint32
		Newfd      uint32
		NewfdFlags uint32
	}
)

// ioctl calls ioctl(fd, req, arg).
func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}
