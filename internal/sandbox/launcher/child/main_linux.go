package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxSpec bounds the Spec the launcher reads.
const maxSpec = 4 << 20

func init() { Init() }

// Init runs Main and exits when this process was started as a launcher;
// otherwise it returns at once. It is called from this package's init,
// which runs before most of the program's other packages are initialised
// (see the package documentation), which keeps a launch cheap.
func Init() {
	if len(os.Args) == 4 && os.Args[1] == RelayArg {
		err := relay(os.Args[2], os.Args[3] == NetNamespace)
		os.Stderr.WriteString("optr sandbox launcher: " + err.Error() + "\n")
		os.Exit(125)
	}
	if os.Getenv(Marker) == "" {
		return
	}
	os.Exit(Main())
}

// Main is the launcher: it reads the Spec, confines itself, starts the
// program and supervises it. It returns the exit status to use: the
// program's, or, when the launch failed, 125 (the parent has been told why
// on the control socket), 126 or 127 (the program could not be executed).
func Main() int {
	// Every step below applies to this OS thread, and the program must be
	// started from it too; the thread is never unlocked.
	runtime.LockOSThread()
	parent := os.Getppid()
	abi := landlockABI()
	ctl := &control{f: os.NewFile(ControlFD, "control"), abi: abi}
	unix.CloseOnExec(ControlFD)
	spec, stage, err := readSpec(ctl.f)
	if err != nil {
		return ctl.fail(stage, err)
	}
	spec.ABI = min(spec.ABI, abi)
	if spec.Maps != nil {
		if err := writeMaps(*spec.Maps); err != nil {
			return ctl.fail("maps", err)
		}
	}
	var lfd = -1
	if spec.Net == NetNamespace {
		if lfd, err = listenInNamespace(spec.ProxyPort); err != nil {
			return ctl.fail("net", err)
		}
	}
	// The ruleset is built while the launcher may still open every path
	// it names (as root, before it becomes the unprivileged user).
	rs, err := newRuleset(spec)
	if err != nil {
		return ctl.fail("landlock", err)
	}
	// Privileges held for the namespace's set-up go before anything the
	// program could use them for: an ambient capability by clearing it;
	// root's by starting the program as the unprivileged user (a probe
	// becomes that user itself, to see that it can). The launcher itself
	// stays root: the program cannot signal, trace or read it, and a
	// change of user here would stop every thread of the launcher to
	// apply it to each (Go's AllThreadsSyscall), milliseconds per agent.
	if spec.UID >= 0 && spec.Probe {
		if err := dropTo(spec.UID, spec.GID); err != nil {
			return ctl.fail("user", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return ctl.fail("caps", fmt.Errorf("clear ambient capabilities: %w", err))
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return ctl.fail("landlock", fmt.Errorf("set no_new_privs: %w", err))
	}
	if err := rs.enforce(); err != nil {
		return ctl.fail("landlock", err)
	}
	// The seccomp layer last: from here on this thread's connect and
	// signal calls are the supervisor's to answer.
	notifyFD := -1
	if spec.Seccomp != nil && off("seccomp") {
		ctl.noSeccomp = "this build of the launcher leaves the seccomp layer out (a test's)"
	} else if spec.Seccomp != nil {
		notifyFD, err = installLayer(spec.Seccomp.Signals)
		switch {
		case err != nil && spec.Probe:
			ctl.noSeccomp = err.Error()
		case err != nil:
			return ctl.fail("seccomp", err)
		}
	}
	var sup *supervisor
	if !spec.Probe {
		if sup, err = newSupervisor(parent); err != nil {
			return ctl.fail("reaper", err)
		}
	}
	if err := ctl.send(Reply{OK: true}, lfd); err != nil {
		return 125 // the parent is gone or broke the protocol: run nothing
	}
	if lfd >= 0 {
		unix.Close(lfd)
	}
	if spec.Probe {
		return 0
	}
	if notifyFD >= 0 {
		// On a thread of its own, which the filter (installed on this
		// thread only) does not apply to.
		go newNotifier(notifyFD, spec, ctl.event).serve()
	}
	// Started from this locked thread: the program inherits its
	// confinement. It dies with the launcher (parent-death signal).
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if spec.UID >= 0 {
		sys.Credential = &syscall.Credential{Uid: uint32(spec.UID), Gid: uint32(spec.GID), Groups: []uint32{}}
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{Env: spec.Env, Files: []uintptr{0, 1, 2}, Sys: sys})
	if err != nil {
		_ = ctl.send(Reply{Error: fmt.Sprintf("exec %s: %v", spec.Path, err), Stage: "exec"}, -1)
		if errors.Is(err, syscall.ENOENT) {
			return 127
		}
		return 126
	}
	// The parent now reads what the seccomp layer refused, until the
	// launcher ends.
	_ = ctl.send(Reply{Running: true}, -1)
	if spec.Relayed && !off("control") {
		sup.watchControl(ControlFD)
	}
	status := sup.run(pid)
	runtime.KeepAlive(ctl) // its file, descriptor 3, stays open to the end
	return status
}

// dropTo makes every thread of the launcher uid:gid with no
// supplementary groups and, with them, no capabilities (a probe's check
// that the program can run as that user).
func dropTo(uid, gid int) error {
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("drop supplementary groups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("become gid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("become uid %d: %w", uid, err)
	}
	return nil
}

// readSpec reads the Spec; on an error it also returns the stage that
// failed: "spec", or "build" for a Spec from another build, which the
// launcher follows in nothing.
func readSpec(ctl *os.File) (Spec, string, error) {
	spec := Spec{UID: -1, GID: -1}
	dec := json.NewDecoder(&limited{f: ctl, left: maxSpec})
	if err := dec.Decode(&spec); err != nil {
		return spec, "spec", fmt.Errorf("read the launch spec: %w", err)
	}
	if spec.Build != Build() {
		return spec, "build", fmt.Errorf("the launcher is %s; optr is %s", Build(), spec.Build)
	}
	if spec.Path == "" && !spec.Probe {
		return spec, "spec", errors.New("the launch spec names no program")
	}
	return spec, "", nil
}

// limited reads at most left bytes from f.
type limited struct {
	f    *os.File
	left int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("launch spec too large")
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= n
	return n, err
}

// control is the launcher's end of the control socket. Its messages go
// out whole, one at a time: the main thread's and the seccomp
// supervisor's.
type control struct {
	f         *os.File
	mu        sync.Mutex
	abi       int
	noSeccomp string
}

// fail reports err on the control socket and returns the exit status.
func (c *control) fail(stage string, err error) int {
	_ = c.send(Reply{Error: err.Error(), Stage: stage}, -1)
	return 125
}

// event reports what the seccomp layer refused.
func (c *control) event(e Event) { _ = c.send(Reply{Event: &e}, -1) }

// send writes r, with this launcher's Build and what it can enforce, and
// fd attached when it is not -1, in one message.
func (c *control) send(r Reply, fd int) error {
	r.Build, r.ABI, r.NoSeccomp = Build(), c.abi, c.noSeccomp
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return unix.Sendmsg(ControlFD, append(b, '\n'), oob, nil, 0)
}

// writeMaps maps ids to themselves in the launcher's user namespace,
// which its parent created without maps (an unprivileged optr, being
// non-dumpable, may not write them: its children's /proc files are
// root's). The launcher holds CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID
// in that namespace, as ambient capabilities its parent gave it; writing
// "deny" to setgroups first is what lets an unprivileged user map its
// gid, and keeps the groups it has.
func writeMaps(ids IDs) error {
	for _, w := range []struct{ file, text string }{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", strconv.Itoa(ids.GID) + " " + strconv.Itoa(ids.GID) + " 1\n"},
		{"/proc/self/uid_map", strconv.Itoa(ids.UID) + " " + strconv.Itoa(ids.UID) + " 1\n"},
	} {
		if err := os.WriteFile(w.file, []byte(w.text), 0); err != nil {
			return fmt.Errorf("map the user namespace: %w", err)
		}
	}
	return nil
}
