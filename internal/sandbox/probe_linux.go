package sandbox

import (
	"context"
	"fmt"
	"os"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

func probe(ctx context.Context) (Platform, error) {
	var p Platform
	if v, err := ll.LandlockGetABIVersion(); err != nil || v < 1 {
		p.NoLandlock = fmt.Sprintf("the kernel does not offer Landlock (%v); it needs Linux 5.13 or newer with landlock in the lsm= boot list", err)
	} else {
		p.ABI = v
	}
	p.Root = os.Geteuid() == 0
	proc := launcher.Process{UID: -1}
	if p.Root {
		proc = launcher.Process{UID: UnprivilegedUID, GID: UnprivilegedGID}
		if err := launcher.Probe(ctx, launcher.Spec{}, proc); err != nil {
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
			p.NoUser = fmt.Sprintf("could not start a process as uid %d: %v", UnprivilegedUID, err)
			proc = launcher.Process{UID: -1}
		} else {
			p.Unprivileged = true
		}
	}
	proc.NewNet = true
	if err := launcher.Probe(ctx, launcher.Spec{Net: launcher.NetNamespace, ProxyPort: ProxyPort}, proc); err != nil {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		p.NoNetNS = fmt.Sprintf("the kernel refused a user and network namespace (%v): in Docker the default seccomp profile forbids them; on Ubuntu 24.04 AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns)", err)
	} else {
		p.NetNS = true
	}
	return p, nil
}

// nonDumpable makes optr non-dumpable: its /proc files (environ, mem,
// maps, fd) belong to root and no process without CAP_SYS_PTRACE can
// ptrace or read them.
func nonDumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
