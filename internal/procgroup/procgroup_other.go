//go:build !unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"strconv"
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

// Reaped is what Reap found and killed.
type Reaped struct {
	Processes []int
	Owners    []string
}

// Reap finds nothing without process groups and /proc: an agent that
// outlived a killed optr runs until it ends or the runner stops the job.
func Reap(ctx context.Context) (Reaped, error) { return Reaped{}, ctx.Err() }

// Self names this process for Alive.
func Self() string { return strconv.Itoa(os.Getpid()) + ":0" }

// Alive reports whether the process named by token may still run. Without
// a way to ask, only this process is known to run, and every other token is
// treated as alive so nothing is taken from a run that may go on.
func Alive(token string) bool { return true }
