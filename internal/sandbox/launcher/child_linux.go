package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Marker is the variable that makes a process a launcher; its value is
// the control socket's descriptor number.
const Marker = "OPTR_SANDBOX_LAUNCHER"

// controlFD is the control socket's descriptor in the launcher: the first
// of cmd.ExtraFiles.
const controlFD = 3

// maxSpec bounds the Spec the launcher reads.
const maxSpec = 4 << 20

func init() { Init() }

// Init runs Main and exits when this process was started as a launcher;
// otherwise it returns at once. It is called from this package's init,
// before main and before most of the program's other packages are
// initialised, which keeps a launch cheap.
func Init() {
	if os.Getenv(Marker) == "" {
		return
	}
	os.Exit(Main())
}

// Main is the launcher: it reads the Spec, confines itself and execs the
// program. It returns only when that failed, with the exit status to use
// (the parent has been told why on the control socket).
func Main() int {
	// Every step below applies to this OS thread, and the exec must run
	// on it too; the thread is never unlocked, so it dies with a failure.
	runtime.LockOSThread()
	ctl := os.NewFile(controlFD, "control")
	unix.CloseOnExec(controlFD) // a successful exec closes it: the parent's signal
	spec, err := readSpec(ctl)
	if err != nil {
		return fail(ctl, "spec", err)
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
	// program could use them for: root's by becoming the unprivileged
	// user, an ambient capability by clearing it.
	if spec.UID >= 0 {
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
	if err := send(ctl, reply{OK: true}, lfd); err != nil {
		return 125 // the parent is gone or broke the protocol: run nothing
	}
	if lfd >= 0 {
		unix.Close(lfd)
	}
	if spec.Probe {
		return 0
	}
	err = syscall.Exec(spec.Path, spec.Args, spec.Env)
	_ = send(ctl, reply{Error: fmt.Sprintf("exec %s: %v", spec.Path, err), Stage: "exec"}, -1)
	if errors.Is(err, syscall.ENOENT) {
		return 127
	}
	return 126
}

// dropTo makes every thread of the launcher uid:gid with no
// supplementary groups and, with them, no capabilities.
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

func readSpec(ctl *os.File) (Spec, error) {
	spec := Spec{UID: -1, GID: -1}
	dec := json.NewDecoder(&limited{f: ctl, left: maxSpec})
	if err := dec.Decode(&spec); err != nil {
		return spec, fmt.Errorf("read the launch spec: %w", err)
	}
	if spec.Path == "" && !spec.Probe {
		return spec, errors.New("the launch spec names no program")
	}
	return spec, nil
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
	_ = send(ctl, reply{Error: err.Error(), Stage: stage}, -1)
	return 125
}

// send writes r, with fd attached when it is not -1, in one message.
func send(ctl *os.File, r reply, fd int) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(controlFD, append(b, '\n'), oob, nil, 0)
}
