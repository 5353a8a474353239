package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// netnsAllowed starts true in a network namespace of its own (and a user
// namespace when not root), as the sandbox and the namespaced spawner do,
// but without them: whether this machine allows it at all.
func netnsAllowed(t *testing.T) error {
	cmd := exec.CommandContext(t.Context(), "true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	return cmd.Run()
}
