//go:build unix

package command

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// group stops a command's whole process group: the command runs as the
// leader of a new group, so its children and grandchildren can be signalled
// together with kill(-pgid).
type group struct {
	cmd   *exec.Cmd
	grace time.Duration

	mu   sync.Mutex
	kill *time.Timer
}

// newGroup makes cmd start a process group and stop the whole group when
// its context ends: SIGTERM, then SIGKILL after grace. WaitDelay bounds the
// wait for stdout and stderr, which stray grandchildren may hold open.
func newGroup(cmd *exec.Cmd, grace time.Duration) *group {
	g := &group{cmd: cmd, grace: grace}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = g.terminate
	cmd.WaitDelay = grace
	return g
}

// terminate is the command's Cancel: called once, after a successful Start.
func (g *group) terminate() error {
	pgid := g.cmd.Process.Pid
	g.mu.Lock()
	g.kill = time.AfterFunc(g.grace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	g.mu.Unlock()
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	return nil
}

// finish is called after Wait: whatever is left of the group (background
// processes, strays that ignored SIGTERM) is killed, so that nothing of the
// attempt outlives it. The group id cannot be reused while any member
// lives; when none does, the kill finds nothing (a new process would need
// that very pid, handed out in sequence, within this instant).
func (g *group) finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.kill != nil {
		g.kill.Stop()
	}
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
}

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
