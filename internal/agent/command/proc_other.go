//go:build !unix

package command

import (
	"errors"
	"io/fs"
	"os/exec"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// group stops a command where process groups are not available: only the
// direct child is killed.
type group struct{}

func newGroup(cmd *exec.Cmd, grace time.Duration) *group {
	cmd.WaitDelay = grace
	return &group{}
}

func (g *group) finish() {}

func startFailure(err error) (agent.Class, string) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return agent.Fatal, "bad_config"
	}
	return agent.Transient, "start_failed"
}
