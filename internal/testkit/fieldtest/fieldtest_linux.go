package fieldtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

// Env is the field a program runs in. The zero Env is this machine as
// it is.
type Env struct {
	// Docker applies Docker's default seccomp profile and capabilities.
	Docker bool `json:"docker,omitempty"`
	// UID and GID, when UID is not 0, run the program as that user, with
	// Groups as its supplementary groups.
	UID    int   `json:"uid,omitempty"`
	GID    int   `json:"gid,omitempty"`
	Groups []int `json:"groups,omitempty"`
	// NoUserNS refuses new user namespaces (clone and unshare with
	// CLONE_NEWUSER; clone3, whose flags a filter cannot see, is ENOSYS,
	// as Docker makes it).
	NoUserNS bool `json:"no_userns,omitempty"`
}

// marker is the variable that makes the test binary apply an Env and
// execute a program.
const marker = "OPTR_FIELDTEST"

// request is what the marker carries.
type request struct {
	Env  Env      `json:"env"`
	Path string   `json:"path"`
	Args []string `json:"args"`
}

// Wrap makes cmd, not yet started, start its program in e. The test
// must run as root (it gives the restrictions up, never gains them).
func (e Env) Wrap(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("fieldtest applies the field's restrictions as root, which gives them up; this test runs as another user")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(request{Env: e, Path: cmd.Path, Args: cmd.Args})
	if err != nil {
		t.Fatal(err)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Path, cmd.Args = self, []string{self}
	cmd.Env = append(env[:len(env):len(env)], marker+"="+string(b))
}

func init() {
	v, ok := os.LookupEnv(marker)
	if !ok {
		return
	}
	err := apply(v)
	fmt.Fprintln(os.Stderr, "fieldtest:", err)
	os.Exit(125)
}

// apply applies the request's Env to this thread and executes its
// program; it returns only on an error.
func apply(v string) error {
	runtime.LockOSThread()
	var req request
	if err := json.Unmarshal([]byte(v), &req); err != nil {
		return err
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, marker+"=") {
			env = append(env, kv)
		}
	}
	e := req.Env
	// Filters first, while this thread may install them without
	// no_new_privs (Docker sets none): they hold across the change of
	// user and the exec.
	if e.Docker {
		filter, err := DockerFilter()
		if err != nil {
			return err
		}
		if _, err := child.Install(filter, 0); err != nil {
			return fmt.Errorf("install Docker's profile: %w", err)
		}
		if err := dockerCapabilities(); err != nil {
			return err
		}
	}
	if e.NoUserNS {
		filter, err := noUserNSFilter()
		if err != nil {
			return err
		}
		if _, err := child.Install(filter, 0); err != nil {
			return fmt.Errorf("install the user-namespace filter: %w", err)
		}
	}
	if e.UID != 0 {
		if err := syscall.Setgroups(e.Groups); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
		if err := syscall.Setresgid(e.GID, e.GID, e.GID); err != nil {
			return fmt.Errorf("setresgid: %w", err)
		}
		if err := syscall.Setresuid(e.UID, e.UID, e.UID); err != nil {
			return fmt.Errorf("setresuid: %w", err)
		}
	}
	return unix.Exec(req.Path, req.Args, env)
}

// dockerCaps are the capabilities Docker gives a container's process by
// default (moby's oci/caps, DefaultCapabilities).
var dockerCaps = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
	"CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
}

// capNumbers are the numbers of dockerCaps (linux/capability.h).
var capNumbers = map[string]int{
	"CAP_CHOWN": unix.CAP_CHOWN, "CAP_DAC_OVERRIDE": unix.CAP_DAC_OVERRIDE, "CAP_FSETID": unix.CAP_FSETID,
	"CAP_FOWNER": unix.CAP_FOWNER, "CAP_MKNOD": unix.CAP_MKNOD, "CAP_NET_RAW": unix.CAP_NET_RAW,
	"CAP_SETGID": unix.CAP_SETGID, "CAP_SETUID": unix.CAP_SETUID, "CAP_SETFCAP": unix.CAP_SETFCAP,
	"CAP_SETPCAP": unix.CAP_SETPCAP, "CAP_NET_BIND_SERVICE": unix.CAP_NET_BIND_SERVICE,
	"CAP_SYS_CHROOT": unix.CAP_SYS_CHROOT, "CAP_KILL": unix.CAP_KILL, "CAP_AUDIT_WRITE": unix.CAP_AUDIT_WRITE,
}

// dockerCapabilities limits the bounding set to Docker's and clears the
// inheritable set: a root program executed next holds Docker's
// capabilities and no other (no CAP_SYS_ADMIN, no CAP_SYS_PTRACE).
func dockerCapabilities() error {
	keep := map[int]bool{}
	for _, c := range dockerCaps {
		keep[capNumbers[c]] = true
	}
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return err
	}
	last, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		if keep[c] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// DockerFilter is Docker's default seccomp profile for this machine's
// architecture and Docker's default capabilities, as a filter.
func DockerFilter() ([]unix.SockFilter, error) {
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: dockerCaps}}}
	profile, err := seccomp.GetDefaultProfile(rs)
	if err != nil {
		return nil, err
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	def, err := action(profile.DefaultAction, profile.DefaultErrnoRet, nil)
	if err != nil {
		return nil, err
	}
	var rules []child.Rule
	for _, sc := range profile.Syscalls {
		act, err := action(sc.Action, sc.ErrnoRet, profile.DefaultErrnoRet)
		if err != nil {
			return nil, err
		}
		var nrs []uint32
		for _, name := range sc.Names {
			// A call this table does not know is newer than it: the
			// kernel here has it under a number no rule names, and the
			// default refuses it, as Docker's libseccomp would not.
			if nr, ok := info.SyscallNames[name]; ok {
				nrs = append(nrs, uint32(nr))
			}
		}
		if len(nrs) == 0 {
			continue
		}
		args := make([]child.Arg, len(sc.Args))
		repeated := map[uint]bool{}
		split := false
		for i, a := range sc.Args {
			if args[i], err = arg(a); err != nil {
				return nil, err
			}
			split = split || repeated[a.Index]
			repeated[a.Index] = true
		}
		if split {
			// runc adds conditions on one argument as rules of their
			// own (opencontainers/runc#2735): they are alternatives.
			for _, a := range args {
				rules = append(rules, child.Rule{Nrs: nrs, Args: []child.Arg{a}, Action: act})
			}
			continue
		}
		rules = append(rules, child.Rule{Nrs: nrs, Args: args, Action: act})
	}
	x32 := uint32(0)
	if info.ID == arch.X86_64.ID {
		x32 = uint32(arch.X32.SeccompMask)
	}
	prog, err := child.Filter(uint32(info.ID), x32, rules, def, def)
	if err != nil {
		return nil, err
	}
	return child.Assemble(prog)
}

// action is the filter's return value for a profile's action.
func action(a specs.LinuxSeccompAction, errno, defErrno *uint) (uint32, error) {
	switch a {
	case specs.ActAllow:
		return unix.SECCOMP_RET_ALLOW, nil
	case specs.ActErrno:
		e := uint(unix.EPERM)
		if defErrno != nil {
			e = *defErrno
		}
		if errno != nil {
			e = *errno
		}
		return unix.SECCOMP_RET_ERRNO | uint32(e), nil
	case specs.ActKill, specs.ActKillThread:
		return unix.SECCOMP_RET_KILL_THREAD, nil
	case specs.ActKillProcess:
		return unix.SECCOMP_RET_KILL_PROCESS, nil
	case specs.ActTrap:
		return unix.SECCOMP_RET_TRAP, nil
	case specs.ActLog:
		return unix.SECCOMP_RET_LOG, nil
	case specs.ActTrace:
		return unix.SECCOMP_RET_TRACE | uint32(unix.EPERM), nil
	}
	return 0, fmt.Errorf("seccomp profile: action %s is not reproduced", a)
}

// arg is the launcher assembler's condition for a profile's.
func arg(a specs.LinuxSeccompArg) (child.Arg, error) {
	c := child.Arg{Index: int(a.Index), Value: a.Value}
	switch a.Op {
	case specs.OpEqualTo:
		c.Op = child.Eq
	case specs.OpNotEqual:
		c.Op = child.Ne
	case specs.OpLessThan:
		c.Op = child.Lt
	case specs.OpLessEqual:
		c.Op = child.Le
	case specs.OpGreaterThan:
		c.Op = child.Gt
	case specs.OpGreaterEqual:
		c.Op = child.Ge
	case specs.OpMaskedEqual:
		c.Op, c.Mask, c.Value = child.MaskedEq, a.Value, a.ValueTwo
	default:
		return c, fmt.Errorf("seccomp profile: comparison %s is not reproduced", a.Op)
	}
	return c, nil
}

// noUserNSFilter refuses new user namespaces and allows everything else.
func noUserNSFilter() ([]unix.SockFilter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	newUser := child.Arg{Index: 0, Op: child.MaskedEq, Mask: unix.CLONE_NEWUSER, Value: unix.CLONE_NEWUSER}
	prog, err := child.Filter(uint32(info.ID), 0, []child.Rule{
		{Nrs: []uint32{unix.SYS_CLONE, unix.SYS_UNSHARE}, Args: []child.Arg{newUser}, Action: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Nrs: []uint32{unix.SYS_CLONE3}, Action: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}, unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ALLOW)
	if err != nil {
		return nil, err
	}
	return child.Assemble(prog)
}
