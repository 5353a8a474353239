package procgroup

import "syscall"

// sysProcAttr starts the command as a new process group's leader that gets
// SIGKILL when the thread that started it dies — with optr killed, the
// leader goes at once. Its own children do not inherit the signal; Reap
// finds them at the next start.
//
// The parent-death signal is tied to the OS thread that forked, not the
// process: Go keeps the threads it starts processes from alive unless a
// goroutine locked to one exits, which optr never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
