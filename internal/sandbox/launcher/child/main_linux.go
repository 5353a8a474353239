package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
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
	ctl := os.NewFile(ControlFD, "control")
	unix.CloseOnExec(ControlFD)
	spec, stage, err := readSpec(ctl)
	if err != nil {
		return fail(ctl, stage, err)
	}
	var lfd = -1
	if spec.Net == NetNamespace {
		if lfd, err = listenInNamespace(spec.ProxyPort); err != nil {
			return fail(ctl, "net", err)
		}
	}
	// The ruleset is built while the launcher may still open every path
	// it names (as root, before it becomes the unprivileged user).
	rs, err := newRuleset(spec)
	if err != nil {
		return fail(ctl, "landlock", err)
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
			return fail(ctl, "user", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fail(ctl, "caps", fmt.Errorf("clear ambient capabilities: %w", err))
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail(ctl, "landlock", fmt.Errorf("set no_new_privs: %w", err))
	}
	if err := rs.enforce(); err != nil {
		return fail(ctl, "landlock", err)
	}
	var sup *supervisor
	if !spec.Probe {
		if sup, err = newSupervisor(parent); err != nil {
			return fail(ctl, "reaper", err)
		}
	}
	if err := send(Reply{OK: true}, lfd); err != nil {
		return 125 // the parent is gone or broke the protocol: run nothing
	}
	if lfd >= 0 {
		unix.Close(lfd)
	}
	if spec.Probe {
		return 0
	}
	// Started from this locked thread: the program inherits its
	// confinement. It dies with the launcher (parent-death signal).
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if spec.UID >= 0 {
		sys.Credential = &syscall.Credential{Uid: uint32(spec.UID), Gid: uint32(spec.GID), Groups: []uint32{}}
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{Env: spec.Env, Files: []uintptr{0, 1, 2}, Sys: sys})
	if err != nil {
		_ = send(Reply{Error: fmt.Sprintf("exec %s: %v", spec.Path, err), Stage: "exec"}, -1)
		if errors.Is(err, syscall.ENOENT) {
			return 127
		}
		return 126
	}
	ctl.Close() // the end of file tells the parent the program runs
	return sup.run(pid)
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

// fail reports err on the control socket and returns the exit status.
func fail(ctl *os.File, stage string, err error) int {
	_ = send(Reply{Error: err.Error(), Stage: stage}, -1)
	return 125
}

// send writes r, with this launcher's Build and fd attached when it is
// not -1, in one message.
func send(r Reply, fd int) error {
	r.Build = Build()
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(ControlFD, append(b, '\n'), oob, nil, 0)
}
