package child

import (
	"fmt"
	"strconv"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// configs are go-landlock's presets by ABI version; the launcher enforces
// the one the parent probed (a newer kernel gets the newest preset this
// go-landlock knows).
var configs = []landlock.Config{
	{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// maxABI, set at link time (-ldflags "-X
// github.com/optr-dev/optr/internal/sandbox/launcher/child.maxABI=4"),
// caps the Landlock ABI the launcher reports and enforces: how the tests
// reproduce a kernel with an older Landlock (GitHub's Ubuntu 24.04
// runners: 6.8, ABI 4) on a newer one.
var maxABI string

// landlockABI is the Landlock ABI this launcher enforces: the kernel's,
// capped by maxABI; 0 without Landlock.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	if limit, err := strconv.Atoi(maxABI); err == nil && limit < v {
		return max(limit, 0)
	}
	return v
}

// ruleset is a Landlock ruleset built and not yet enforced; fd -1 is none.
type ruleset struct {
	fd    int
	flags uint32
}

// enforce restricts the calling thread, which must be locked and already
// have no_new_privs, and closes the ruleset.
func (r ruleset) enforce() error {
	if r.fd < 0 {
		return nil
	}
	defer unix.Close(r.fd)
	if err := ll.LandlockRestrictSelf(r.fd, r.flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// newRuleset builds spec's Landlock ruleset. With no FS rules and no
// NetLandlock, there is none.
func newRuleset(spec Spec) (ruleset, error) {
	if spec.ABI <= 0 || (spec.FS == nil && spec.Net != NetLandlock) {
		return ruleset{fd: -1}, nil
	}
	abi := min(spec.ABI, len(configs)-1)
	cfg := configs[abi]
	if spec.FS == nil {
		cfg.HandledAccessFS = 0
	}
	if spec.Net != NetLandlock {
		cfg.HandledAccessNet = 0
	} else {
		// Connecting and sending are confined (UDP from ABI 10: no port
		// is allowed, as in a namespace); binding is not, so the program
		// may still run servers of its own, a test suite's.
		cfg.HandledAccessNet &= ll.AccessNetConnectTCP | ll.AccessNetConnectSendUDP
	}
	var rules []landlock.Rule
	if fs := spec.FS; fs != nil {
		write := landlock.RWDirs(fs.WriteDirs...).IgnoreIfMissing()
		if abi >= 2 {
			write = write.WithRefer() // rename and link within and between them
		}
		devices := landlock.RWFiles(fs.Devices...).IgnoreIfMissing()
		if abi >= 5 {
			devices = devices.WithIoctlDev()
		}
		// /proc is always readable: the launcher finds the program's
		// orphans there (children), under the same ruleset.
		rules = append(rules,
			landlock.RODirs(append(fs.ReadDirs, "/proc")...).IgnoreIfMissing(),
			landlock.ROFiles(fs.ReadFiles...).IgnoreIfMissing(),
			write,
			landlock.RWFiles(fs.WriteFiles...).IgnoreIfMissing(),
			devices,
		)
	}
	if spec.Net == NetLandlock {
		rules = append(rules, landlock.ConnectTCP(uint16(spec.ProxyPort)))
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return ruleset{fd: -1}, fmt.Errorf("landlock ruleset: %w", err)
	}
	return ruleset{fd: fd, flags: flags}, nil
}
