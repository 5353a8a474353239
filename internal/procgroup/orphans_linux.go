package procgroup

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// noSubreaper, set at link time (-ldflags "-X
// github.com/optr-dev/optr/internal/procgroup.noSubreaper=1"), turns the
// subreaper off: how the tests show what escapes without it.
var noSubreaper string

// orphans counts the groups that run, so that processes reparented to
// optr are ended only when none does (see track).
var orphans struct {
	sync.Mutex
	active int
	once   sync.Once
	on     bool
}

// sweepFor bounds how long the last group's end waits for the processes
// it killed to be gone.
const sweepFor = 2 * time.Second

// track counts a new group and, the first time, makes optr a child
// subreaper: a process that leaves its group with setsid — and with
// `env -i` loses the owner variable Reap looks for — is reparented to
// optr, not to init, when its parent ends. Under the sandbox the
// launcher, each program's own subreaper, ends such processes with their
// program; this is the layer for sandbox.mode off and for what a launcher
// killed by SIGKILL leaves.
func track() {
	orphans.once.Do(func() {
		orphans.on = noSubreaper == "" && unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
	orphans.Lock()
	orphans.active++
	orphans.Unlock()
}

// untrack ends the count of a group whose leader was pgid (0: never
// started). When no group runs any more, every process that was
// reparented to optr from a group — a child of optr outside optr's own
// process group — is killed and reaped: with no group running, such a
// child can only be what an ended agent or check left behind. Children
// optr starts itself (git, the Copilot CLI) stay in optr's group.
func untrack(pgid int) {
	orphans.Lock()
	defer orphans.Unlock()
	orphans.active--
	if orphans.active > 0 || !orphans.on {
		return
	}
	deadline := time.Now().Add(sweepFor)
	for {
		left := strays()
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range left {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		// The group was just killed: until all of it is gone, a member
		// that dies may still hand optr an orphan.
		if len(left) == 0 && (pgid <= 0 || syscall.Kill(-pgid, 0) != nil) || time.Now().After(deadline) {
			return
		}
		if len(left) == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// strays are optr's children outside its own process group. An orphan is
// handed to the thread of optr that started its ancestor (the first live
// thread of optr from there), so every thread's children file is read.
func strays() []int {
	self, group := strconv.Itoa(os.Getpid()), strconv.Itoa(syscall.Getpgrp())
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if st, ok := statFields(pid); ok && len(st) > 2 && st[2] != group && st[1] == self {
				out = append(out, pid)
			}
		}
	}
	return out
}
