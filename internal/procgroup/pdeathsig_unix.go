//go:build unix && !linux

package procgroup

import "syscall"

// sysProcAttr starts the command as a new process group's leader. Systems
// other than Linux have no parent-death signal: when optr is killed, the
// group lives on until Reap (where /proc exists) or the runner kills it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
