//go:build unix

package check

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a new process group and makes cancelling it
// kill the whole group, so a check's children (a shell's pipeline, a test
// runner's workers) do not outlive its timeout.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// A negative pid signals the process group. The leader is not yet
		// reaped when Cancel runs, so the group id cannot have been reused.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
