package child

import (
	"errors"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A supervisor is the launcher once the program runs: its parent, and a
// child subreaper (PR_SET_CHILD_SUBREAPER), so every process the program
// leaves behind — a double fork, a setsid daemon, one started with
// `env -i` that carries none of optr's markers — is reparented to the
// launcher when its own parent ends. When the program exits, the launcher
// kills and reaps everything still below it, and only then exits itself,
// with the program's status: nothing an agent or a check started outlives
// it.
//
// Why a subreaper and not a PID namespace of the agent's own (where the
// kernel kills every process when the namespace's init ends): a PID
// namespace needs CLONE_NEWPID, which Docker's default seccomp profile
// refuses and Ubuntu's AppArmor user-namespace restriction blocks, so the
// container action — optr's main platform — would go without; the
// program would run as the namespace's init, which ignores every signal
// it installed no handler for (the SIGTERM of a cancelled attempt
// included) and must reap orphans itself; and /proc would still show the
// host's processes without a mount namespace too. A subreaper needs no
// privilege, works under every sandbox layer, and costs one process per
// agent.
//
// When optr dies the launcher is sent SIGTERM (its parent-death signal):
// it then kills the program and ends everything as above. A SIGTERM while
// optr lives is the attempt being cancelled: it was sent to the whole
// process group, the program's included, and the launcher waits for the
// program as usual. A SIGKILL ends the launcher at once; the program dies
// with it (its own parent-death signal) and what it left is reparented
// to optr, which ends it (package procgroup).
type supervisor struct {
	parent int
	sigs   chan os.Signal
	// gone, for a launcher started through sudo, is closed when optr's
	// end of the control socket closed: optr died (watchControl).
	gone chan struct{}
}

// disabled, set at link time (-ldflags "-X
// github.com/optr-dev/optr/internal/sandbox/launcher/child.disabled=seccomp"),
// lists layers the launcher leaves out whatever the Spec says: how the
// tests show that each one is what stops what it stops. "seccomp" is the
// whole seccomp layer; "control" a relayed launcher's watch of optr's end
// of the control socket (watchControl).
var disabled string

// off reports whether layer is disabled at link time.
func off(layer string) bool {
	return disabled != "" && slices.Contains(strings.Split(disabled, ","), layer)
}

// noSubreaper, set at link time (-ldflags "-X
// github.com/optr-dev/optr/internal/sandbox/launcher/child.noSubreaper=1"),
// makes the launcher only wait for the program: how the tests show what
// escapes without the subreaper.
var noSubreaper string

// newSupervisor makes the launcher a child subreaper that learns of its
// parent's death (parent is the parent's pid, read at the start).
func newSupervisor(parent int) (*supervisor, error) {
	// The program and the orphans are the main thread's children, the
	// only ones children reads: the launcher must run there (it does,
	// from package init, which runs on the main thread).
	if unix.Gettid() != os.Getpid() {
		return nil, errors.New("the launcher does not run on the main thread")
	}
	s := &supervisor{parent: parent, sigs: make(chan os.Signal, 4)}
	signal.Notify(s.sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	if noSubreaper == "" {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return nil, err
		}
	}
	// SIGTERM, unlike the SIGKILL optr's process group asked for, lets the
	// launcher end the program's descendants before it goes.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		return nil, err
	}
	if os.Getppid() != parent {
		return nil, errors.New("optr ended before the program started")
	}
	// Nothing the program runs may read the launcher's memory or
	// environment (as the same user, where optr is not root).
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	return s, nil
}

// run waits for the program (pid), reaping the orphans it leaves on the
// way, ends every descendant still alive, and returns the exit status to
// leave with.
func (s *supervisor) run(pid int) int {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		pidfd = -1
	}
	go s.watchParent(pid, pidfd)
	var status syscall.WaitStatus
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 125 // no child at all: cannot happen while pid runs
		}
		if got == pid {
			status = ws
			break
		}
	}
	if noSubreaper == "" {
		endAll()
	}
	return exitStatus(status)
}

// watchParent kills the program when optr died (the parent-death signal,
// or any of the signals the launcher watches, with another parent).
func (s *supervisor) watchParent(pid, pidfd int) {
	gone := s.gone
	for {
		select {
		case <-s.sigs:
			if os.Getppid() == s.parent {
				continue // the process group's SIGTERM: the program has it too
			}
		case <-gone:
			gone = nil
		}
		if pidfd >= 0 {
			// A pidfd names this very process even after it was reaped.
			_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		} else {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// watchControl is how a launcher started through sudo learns that optr
// died: its parent is sudo, which no parent-death signal ties to optr (the
// kernel clears one across the exec of a set-user-ID program), but optr
// holds the other end of the control socket until the launcher ends, and
// the kernel closes it when optr dies. Call it before run.
func (s *supervisor) watchControl(fd int) {
	s.gone = make(chan struct{})
	go func() {
		defer close(s.gone)
		var buf [64]byte
		for {
			n, err := unix.Read(fd, buf[:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if n <= 0 {
				return
			}
		}
	}()
}

// endAll kills every child of the launcher, waits for one to end (its
// own children are then reparented to the launcher), and again, until
// the launcher has no child left. Kills and reaps happen on this one
// goroutine, so a pid is never signalled after it was reaped.
func endAll() {
	for {
		for _, pid := range children() {
			kill(pid, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return // ECHILD: nothing is left
		}
	}
}

// kill sends sig to pid from a thread other than the main one, and
// waits: the main thread carries the seccomp layer, which with Signals
// hands its kill to the supervisor; syscall.Kill is a raw system call,
// which keeps the launcher's one P (GOMAXPROCS=1), so the supervisor
// could never run to answer it. (The main goroutine is locked to the main
// thread: no other goroutine runs there.)
func kill(pid int, sig syscall.Signal) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = syscall.Kill(pid, sig)
	}()
	<-done
}

// children lists the launcher's children: the children file of its main
// thread, to which the program (started from the locked main thread) and
// every orphan belong (the kernel hands an orphan to the subreaper's
// thread that started its ancestor, the program); else, on a kernel without CONFIG_PROC_CHILDREN,
// every process whose parent is the launcher. The other threads' files
// are not read: a process that read them costs its parent milliseconds of
// kernel time (dentry invalidation) when it is reaped.
func children() []int {
	self := strconv.Itoa(os.Getpid())
	if b, err := os.ReadFile("/proc/self/task/" + self + "/children"); err == nil {
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold anything, but the
		// last ')' closes it.
		i := strings.LastIndexByte(string(b), ')')
		if f := strings.Fields(string(b[i+1:])); i >= 0 && len(f) > 1 && f[1] == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// exitStatus is the launcher's own way out for the program's status ws:
// its exit status, or death by the same signal where the Go runtime lets
// a signal end the process plainly; other signals (those the runtime
// turns into a crash report) become 128 + the signal's number, as a
// shell reports them.
func exitStatus(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGALRM, syscall.SIGUSR1, syscall.SIGUSR2:
		signal.Reset(sig)
		kill(os.Getpid(), sig)
		// The signal is delivered to this process at once; in case it is
		// blocked on this thread, fall through to the shell's convention.
	}
	return 128 + int(sig)
}
