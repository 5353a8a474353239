package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// ProxyPort is the proxy's port inside a process's network namespace:
// HTTPS_PROXY=http://127.0.0.1:3128 there.
const ProxyPort = 3128

// Run is the sandbox of one optr run. It is safe for concurrent use once
// started.
type Run struct {
	s        Settings
	started  bool
	layers   Layers
	notes    []string
	abi      int
	seccomp  bool
	uid, gid int
	// sudo, for a non-root optr, starts the launchers as root, which start
	// processes as optr's user without its supplementary groups.
	sudo  string
	proxy *proxy.Proxy
	// direct starts processes without the launcher: outside Linux there
	// is none, and nothing to confine with.
	direct bool
}

// New returns the sandbox of a run, not yet started: agents and checks
// can be built with it before anything runs.
func New(s Settings) *Run {
	mode := s.Mode
	if mode == "" {
		mode = config.SandboxAuto
	}
	return &Run{s: s, uid: -1, gid: -1, layers: Layers{Mode: mode, Env: "built", FS: "none", Net: "none", Scope: "none", User: "same"}}
}

// Start probes the machine and decides the layers; unless mode is off it
// makes optr non-dumpable. In strict mode a layer that cannot be enforced
// is an error, returned before any process starts. Start before the first
// Command; a second Start does nothing.
func (r *Run) Start(ctx context.Context) error {
	if r.started {
		return nil
	}
	s := r.s
	if r.layers.Mode == config.SandboxOff {
		r.layers.Env = "inherited"
		r.notes = []string{"sandbox.mode is off: agents and checks run with optr's whole environment (its tokens and keys), unconfined, as optr's user"}
		r.started = true
		return nil
	}
	pol, err := proxy.NewPolicy(s.Hosts)
	if err != nil {
		return err
	}
	r.proxy = proxy.New(pol, nil)
	plat, err := Probe(ctx)
	if err != nil {
		return err
	}
	d := decide(plat, s, r.layers.Mode)
	r.layers, r.notes, r.abi, r.seccomp, r.sudo = d.layers, d.notes, d.abi, d.seccomp, d.sudo
	if r.layers.User == "unprivileged" {
		r.uid, r.gid = UnprivilegedUID, UnprivilegedGID
	}
	if pol.Any() {
		r.notes = append(r.notes, `sandbox.network is "*": agents may reach any public host through the proxy (each is recorded)`)
	}
	if r.layers.Mode == config.SandboxStrict && len(d.missing) > 0 {
		return &StrictError{Missing: d.missing}
	}
	if err := nonDumpable(); err != nil {
		return fmt.Errorf("make optr non-dumpable: %w", err)
	}
	r.direct = runtime.GOOS != "linux"
	r.started = true
	return nil
}

// StrictError is strict mode refusing a machine on which a promise of
// the sandbox does not hold (architecture §4.14): egress only through the
// proxy, files confined, processes scoped, no Unix socket but optr's and
// their own, and, as root, an unprivileged user.
type StrictError struct {
	// Missing are the promises that do not hold, each "layer: reason".
	Missing []string
}

func (e *StrictError) Error() string {
	return "sandbox.mode is strict, but on this machine " + strings.Join(e.Missing, "; ") +
		"; no agent was started. Run where the kernel allows these layers, or set sandbox.mode: auto to run with what it allows (the log and the ledger then say what held)"
}

// Layers says what the run enforces.
func (r *Run) Layers() Layers { return r.layers }

// Notes says, once per run, what was not enforced and why (and that the
// network is open to any host); empty when everything holds.
func (r *Run) Notes() []string { return r.notes }

// Off reports whether the run has no sandbox (mode off or a nil Run).
func (r *Run) Off() bool { return r == nil || r.layers.Mode == config.SandboxOff }

// root makes the directory of the run's processes' HOME and TMPDIR.
func (r *Run) tempRoot() string {
	if r.s.Root != "" {
		return r.s.Root
	}
	return os.TempDir()
}
