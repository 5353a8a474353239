//go:build unix

package command

import (
	"errors"
	"syscall"

	"github.com/optr-dev/optr/internal/agent"
)

// startFailure classifies an error from Start: a program or directory that
// is missing or may not be executed is a configuration problem; anything
// else (too many processes, a busy text file, no memory) may pass.
func startFailure(err error) (agent.Class, string) {
	for _, errno := range []syscall.Errno{syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC, syscall.ENOTDIR, syscall.EISDIR, syscall.EPERM} {
		if errors.Is(err, errno) {
			return agent.Fatal, "bad_config"
		}
	}
	return agent.Transient, "start_failed"
}
