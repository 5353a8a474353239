package child

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// signal decides kill, tkill, tgkill, rt_sigqueueinfo and
// rt_tgsigqueueinfo: a signal reaches the launcher and its descendants
// only. Their targets are values, not memory, so an allowed call goes on
// as the program made it, with the program's credentials and errno.
func (n *notifier) signal(req *notif) {
	a := req.Data.Args
	pid, target := int(int32(a[0])), int(int32(a[0]))
	var sig int
	var errno unix.Errno
	switch req.Data.Nr {
	case unix.SYS_KILL:
		sig = int(int32(a[1]))
		switch {
		case pid > 0:
			errno = n.own(pid)
		case pid == 0:
			target = -pgidOf(int(req.Pid))
			errno = n.ownGroup(-target)
		case pid == -1:
			errno = unix.EPERM // every process optr's user may signal
		default:
			errno = n.ownGroup(-pid)
		}
	case unix.SYS_TKILL, unix.SYS_RT_SIGQUEUEINFO:
		sig = int(int32(a[1]))
		errno = n.own(pid)
	case unix.SYS_TGKILL, unix.SYS_RT_TGSIGQUEUEINFO:
		sig = int(int32(a[2]))
		errno = n.own(pid)
	}
	n.decideSignal(req, errno, sig, target)
}

// setown decides fcntl(fd, F_SETOWN, pid): who gets the descriptor's
// SIGIO and SIGURG.
func (n *notifier) setown(req *notif) {
	pid := int(int32(req.Data.Args[2]))
	var errno unix.Errno
	switch {
	case pid > 0:
		errno = n.own(pid)
	case pid < 0:
		errno = n.ownGroup(-pid)
	}
	n.decideSignal(req, errno, int(unix.SIGIO), pid)
}

// decideSignal lets req proceed when errno is 0, else fails it (and
// reports a refusal, EPERM).
func (n *notifier) decideSignal(req *notif, errno unix.Errno, sig, target int) {
	switch errno {
	case 0:
		n.proceed(req)
	case unix.EPERM:
		n.refuse(req, errno, Event{Kind: "signal", Signal: sig, Target: target,
			Reason: "a process outside the agent's own: optr, the runner, another agent"})
	default:
		n.fail(req, errno)
	}
}

// own is 0 when pid (a process or one of its threads) is the launcher or
// one of its descendants, EPERM when it is another process, ESRCH when
// there is none.
//
// The process is held by a pidfd while its ancestry is read, and found
// alive after: a pid cannot be reused while its process has not been
// reaped, so the ancestry read was its own. What remains is the time
// between this answer and the kernel's delivery, in which the process
// would have to end, be reaped, and its pid go to a process outside —
// which the program cannot arrange.
func (n *notifier) own(pid int) unix.Errno {
	tgid := tgidOf(pid)
	if tgid <= 0 {
		return unix.ESRCH
	}
	if tgid == n.launcher {
		return 0
	}
	pidfd, err := unix.PidfdOpen(tgid, 0)
	if err != nil {
		return unix.ESRCH
	}
	defer unix.Close(pidfd)
	mine := false
	for p, depth := tgid, 0; depth < 1<<12; depth++ {
		pp := ppidOf(p)
		if pp == n.launcher {
			mine = true
			break
		}
		if pp <= 1 {
			break
		}
		p = pp
	}
	if unix.PidfdSendSignal(pidfd, 0, nil, 0) != nil {
		return unix.ESRCH
	}
	if !mine {
		return unix.EPERM
	}
	return 0
}

// ownGroup is 0 when the process group pgid has members and each is the
// launcher's own, EPERM when one is not, ESRCH when it has none.
func (n *notifier) ownGroup(pgid int) unix.Errno {
	if pgid <= 0 {
		return unix.ESRCH
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return unix.EPERM
	}
	found := false
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pgidOf(pid) != pgid {
			continue
		}
		found = true
		if errno := n.own(pid); errno == unix.EPERM {
			return unix.EPERM
		}
	}
	if !found {
		return unix.ESRCH
	}
	return 0
}

// statFields are the fields of /proc/<pid>/stat after the command's
// name (which may hold anything, but the last ')' closes it): state,
// ppid, pgrp, …; nil when there is no such process.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// ppidOf is pid's parent, 0 when unknown.
func ppidOf(pid int) int { return statField(pid, 1) }

// pgidOf is pid's process group, 0 when unknown.
func pgidOf(pid int) int { return statField(pid, 2) }

func statField(pid, i int) int {
	f := statFields(pid)
	if len(f) <= i {
		return 0
	}
	v, _ := strconv.Atoi(f[i])
	return v
}

// tgidOf is the process (thread group) of the thread or process pid, 0
// when there is none.
func tgidOf(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			tgid, _ := strconv.Atoi(strings.TrimSpace(v))
			return tgid
		}
	}
	return 0
}
