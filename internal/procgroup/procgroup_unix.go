//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Group stops a command's whole process group: the command runs as the
// leader of a new group, so its children and grandchildren can be signalled
// together with kill(-pgid).
type Group struct {
	cmd   *exec.Cmd
	grace time.Duration

	mu       sync.Mutex
	kill     *time.Timer
	finished bool
}

// New makes cmd (not yet started) start a process group and stop the whole
// group when its context ends: SIGTERM, then SIGKILL after grace. WaitDelay
// bounds the wait for stdout and stderr, which stray grandchildren may
// hold open. Call Finish after Wait.
//
// Against optr itself dying (kill -9, a runner that is torn down): on
// Linux the leader gets SIGKILL when optr dies (a parent-death signal), and
// every process of the group carries OPTR_PROCGROUP_OWNER, naming this optr
// process, in its environment, so that Reap, at the next start, kills what
// is left of the group. Elsewhere only Reap's part is possible where /proc
// exists; see Reap.
func New(cmd *exec.Cmd, grace time.Duration) *Group {
	g := &Group{cmd: cmd, grace: grace}
	cmd.SysProcAttr = sysProcAttr()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// Clipped: the caller's slice may be shared by commands started at
	// the same time, and must not have its spare capacity written.
	cmd.Env = append(slices.Clip(cmd.Env), ownerVar+"="+ownerToken())
	cmd.Cancel = g.terminate
	cmd.WaitDelay = grace
	track()
	return g
}

// terminate is the command's Cancel: called once, after a successful Start.
func (g *Group) terminate() error {
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

// Finish is called after Wait: whatever is left of the group (background
// processes, strays that ignored SIGTERM) is killed, so that nothing of the
// attempt outlives it. The group id cannot be reused while any member
// lives; when none does, the kill finds nothing (a new process would need
// that very pid, handed out in sequence, within this instant).
//
// On Linux, when no other group runs, Finish also ends what was
// reparented to optr from any group (see untrack). Call Finish exactly
// once for every New, also when the command never started; later calls
// do nothing.
func (g *Group) Finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished {
		return
	}
	g.finished = true
	if g.kill != nil {
		g.kill.Stop()
	}
	pgid := 0
	if g.cmd.Process != nil {
		pgid = g.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	untrack(pgid)
}
