package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// probeLaunch starts a probe launcher (launcher.Probe); the tests
// replace it to see the probes' order.
var probeLaunch = launcher.Probe

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
	}
	// Each probe is a launcher started and ended, about 10 ms that every
	// sandboxed run waits for before its first agent: the user's probe
	// and the namespace's (as that user) run at once. Only when the user
	// cannot be had is the namespace probed again, as optr's own user,
	// which agents then run as.
	var userErr error
	var wg sync.WaitGroup
	if p.Root {
		wg.Go(func() { userErr = probeLaunch(ctx, launcher.Spec{}, proc) })
	}
	netErr := probeNet(ctx, proc)
	wg.Wait()
	// A launcher optr will not use says nothing about the kernel: no
	// layer is given up for it, the run stops.
	for _, err := range []error{userErr, netErr} {
		if ue := (*launcher.UnusableError)(nil); errors.As(err, &ue) {
			return p, err
		}
	}
	if p.Root {
		if userErr != nil {
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
			p.NoUser = fmt.Sprintf("could not start a process as uid %d: %v", UnprivilegedUID, userErr)
			netErr = probeNet(ctx, launcher.Process{UID: -1})
		} else {
			p.Unprivileged = true
		}
	}
	if netErr != nil {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		p.NoNetNS = fmt.Sprintf("the kernel refused a user and network namespace (%v): in Docker the default seccomp profile forbids them; on Ubuntu 24.04 AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns)", netErr)
	} else {
		p.NetNS = true
	}
	return p, nil
}

// probeNet probes a launcher of proc in a network namespace of its own.
func probeNet(ctx context.Context, proc launcher.Process) error {
	proc.NewNet = true
	return probeLaunch(ctx, launcher.Spec{Net: launcher.NetNamespace, ProxyPort: ProxyPort}, proc)
}

// nonDumpable makes optr non-dumpable: its /proc files (environ, mem,
// maps, fd) belong to root and no process without CAP_SYS_PTRACE can
// ptrace or read them.
func nonDumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
