package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// probeLaunch starts a probe launcher (launcher.Probe); the tests
// replace it to see the probes' order.
var probeLaunch = launcher.Probe

// probe asks the launcher what it can enforce here. The launcher is the
// one that enforces, so its answer counts, not optr's own view: each
// probe is a launcher started and ended, about 10 ms that every
// sandboxed run waits for before its first agent, so the two probes run
// at once — the base one (the seccomp layer, Landlock's ABI, and as root
// the unprivileged user) and the namespace's (as that user). Only when
// the user cannot be had are both probed again as optr's own user, which
// agents then run as.
func probe(ctx context.Context) (Platform, error) {
	p := Platform{Root: os.Geteuid() == 0}
	if !p.Root {
		p.Groups, _ = os.Getgroups()
	}
	if !p.Root && len(p.Groups) > 0 {
		done, err := p.probeSudo(ctx)
		if done || err != nil {
			return p, err
		}
	}
	proc := launcher.Process{UID: -1}
	if p.Root {
		proc = launcher.Process{UID: UnprivilegedUID, GID: UnprivilegedGID}
	}
	caps, baseErr, netErr := probeBoth(ctx, proc)
	// A launcher optr will not use says nothing about the kernel: no
	// layer is given up for it, the run stops.
	for _, err := range []error{baseErr, netErr} {
		if ue := (*launcher.UnusableError)(nil); errors.As(err, &ue) {
			return p, err
		}
	}
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	if p.Root {
		if baseErr != nil {
			p.NoUser = fmt.Sprintf("could not start a process as uid %d: %v", UnprivilegedUID, baseErr)
			caps, baseErr, netErr = probeBoth(ctx, launcher.Process{UID: -1})
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
		} else {
			p.Unprivileged = true
		}
	}
	p.fromProbe(caps, baseErr, netErr)
	return p, nil
}

// fromProbe records what the probes of the launcher found.
func (p *Platform) fromProbe(caps launcher.Capabilities, baseErr, netErr error) {
	p.ABI = caps.ABI
	if p.ABI < 1 {
		p.ABI = 0
		p.NoLandlock = "the kernel does not offer Landlock; it needs Linux 5.13 or newer with landlock in the lsm= boot list"
	}
	switch {
	case baseErr != nil:
		p.NoSeccomp = fmt.Sprintf("the launcher could not start: %v", baseErr)
	case caps.NoSeccomp != "":
		p.NoSeccomp = caps.NoSeccomp
	default:
		p.Seccomp = true
	}
	if netErr != nil {
		p.NoNetNS = fmt.Sprintf("the kernel refused a user and network namespace (%v): in Docker the default seccomp profile forbids them; on Ubuntu 24.04 AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns)", netErr)
	} else {
		p.NetNS = true
	}
}

// sudoProbeTime bounds the probes through sudo: sudo -n never asks for a
// password, but it may wait on a name service (it looks up the host's
// name) or a PAM module; optr then runs without it rather than hang.
const sudoProbeTime = 20 * time.Second

// probeSudo probes the launcher through sudo (launcher.Process.Sudo),
// for a non-root optr with supplementary groups. When sudo starts it as
// root, and it can start a process as optr's user without the groups,
// the platform is what that launcher found (done); otherwise p.NoSudo
// says why and optr probes without it. err is only a cancelled ctx or a
// launcher optr will not use.
func (p *Platform) probeSudo(ctx context.Context) (done bool, err error) {
	path, err := exec.LookPath("sudo")
	if err != nil || !filepath.IsAbs(path) {
		p.NoSudo = "sudo is not installed (on PATH)"
		return false, nil
	}
	sctx, cancel := context.WithTimeout(ctx, sudoProbeTime)
	defer cancel()
	proc := launcher.Process{UID: os.Getuid(), GID: os.Getgid(), Sudo: path}
	caps, baseErr, netErr := probeBoth(sctx, proc)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if ue := (*launcher.UnusableError)(nil); errors.As(baseErr, &ue) {
		return false, baseErr
	}
	if baseErr != nil {
		p.NoSudo = fmt.Sprintf("sudo -n could not start the sandbox launcher as root (%v)", baseErr)
		if sctx.Err() != nil {
			p.NoSudo = fmt.Sprintf("sudo -n did not start the sandbox launcher within %v", sudoProbeTime)
		}
		return false, nil
	}
	p.Sudo = path
	p.fromProbe(caps, nil, netErr)
	return true, nil
}

// probeBoth runs the base probe and the namespace's at once, as proc.
func probeBoth(ctx context.Context, proc launcher.Process) (caps launcher.Capabilities, baseErr, netErr error) {
	var wg sync.WaitGroup
	wg.Go(func() {
		caps, baseErr = probeLaunch(ctx, launcher.Spec{Seccomp: &launcher.SeccompRules{}}, proc)
	})
	netErr = probeNet(ctx, proc)
	wg.Wait()
	return caps, baseErr, netErr
}

// probeNet probes a launcher of proc in a network namespace of its own.
func probeNet(ctx context.Context, proc launcher.Process) error {
	proc.NewNet = true
	_, err := probeLaunch(ctx, launcher.Spec{Net: launcher.NetNamespace, ProxyPort: ProxyPort}, proc)
	return err
}

// nonDumpable makes optr non-dumpable: its /proc files (environ, mem,
// maps, fd) belong to root and no process without CAP_SYS_PTRACE can
// ptrace or read them.
func nonDumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
