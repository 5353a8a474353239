//go:build !unix

package procgroup

import (
	"os/exec"
	"time"
)

// Group stops a command where process groups are not available: only the
// direct child is killed (os/exec's default on cancel).
type Group struct{}

// New bounds the wait for cmd's output after it ends by grace.
func New(cmd *exec.Cmd, grace time.Duration) *Group {
	cmd.WaitDelay = grace
	return &Group{}
}

// Finish does nothing without process groups.
func (g *Group) Finish() {}
