package sandbox

import (
	"context"
	"sync"
)

// Platform is what this machine lets optr enforce, found once per process.
type Platform struct {
	// ABI is the kernel's Landlock ABI version, 0 without Landlock
	// (NoLandlock says why).
	ABI        int
	NoLandlock string
	// NetNS reports whether a launcher can run in a user and network
	// namespace of its own (NoNetNS says why not).
	NetNS   bool
	NoNetNS string
	// Seccomp reports whether the launcher can install the seccomp layer
	// (NoSeccomp says why not).
	Seccomp   bool
	NoSeccomp string
	// Root reports whether optr runs as root; Unprivileged whether it can
	// then run processes as UnprivilegedUID (NoUser says why not).
	Root         bool
	Unprivileged bool
	NoUser       string
	// Groups are the supplementary groups of optr's user, which a
	// process optr starts keeps when optr is not root (the kernel lets
	// only root drop them).
	Groups []int
	// Sudo, for a non-root optr with Groups, is the sudo that starts its
	// launchers as root, which then start agents and checks as optr's user
	// without those groups; "" when there is none that works without a
	// password (NoSudo says why).
	Sudo   string
	NoSudo string
}

// UnprivilegedUID and UnprivilegedGID are the user and group agents and
// checks run as when optr is root: nobody and nogroup, which own nothing
// on a usual system and hold no capability.
const (
	UnprivilegedUID = 65534
	UnprivilegedGID = 65534
)

var (
	probeMu sync.Mutex
	probed  *Platform
)

// Probe finds what this machine allows, once per process: later calls
// return the first answer.
func Probe(ctx context.Context) (Platform, error) {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probed != nil {
		return *probed, nil
	}
	p, err := probe(ctx)
	if err != nil {
		return p, err // a cancelled probe is tried again next time
	}
	probed = &p
	return p, nil
}
