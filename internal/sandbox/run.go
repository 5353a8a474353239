package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// ProxyPort is the proxy's port inside a process's network namespace:
// HTTPS_PROXY=http://127.0.0.1:3128 there.
const ProxyPort = 3128

// Layers is what a run enforces, as the ledger's run entry records it
// (`sandbox`).
type Layers struct {
	// Mode is sandbox.mode: auto, strict or off.
	Mode string `json:"mode"`
	// Env is "built" (by construction) or "inherited" (mode off).
	Env string `json:"env"`
	// FS is "landlock-vN" or "none".
	FS string `json:"fs"`
	// Net is "netns", "landlock" or "none".
	Net string `json:"net"`
	// User is "unprivileged" or "same".
	User string `json:"user"`
}

// String is the one line a run's log and step summary show.
func (l Layers) String() string {
	return fmt.Sprintf("sandbox (%s): env %s, fs %s, net %s, user %s", l.Mode, l.Env, l.FS, l.Net, l.User)
}

// Run is the sandbox of one optr run. It is safe for concurrent use once
// started.
type Run struct {
	s        Settings
	started  bool
	layers   Layers
	notes    []string
	abi      int
	uid, gid int
	proxy    *proxy.Proxy
}

// New returns the sandbox of a run, not yet started: agents and checks
// can be built with it before anything runs.
func New(s Settings) *Run {
	mode := s.Mode
	if mode == "" {
		mode = config.SandboxAuto
	}
	return &Run{s: s, uid: -1, gid: -1, layers: Layers{Mode: mode, Env: "built", FS: "none", Net: "none", User: "same"}}
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
	off := func(layer, why string) string {
		if s.Unavailable[layer] != "" {
			return s.Unavailable[layer]
		}
		return why
	}
	if why := off("fs", plat.NoLandlock); why == "" {
		r.abi = plat.ABI
		r.layers.FS = fmt.Sprintf("landlock-v%d", plat.ABI)
	} else {
		r.notes = append(r.notes, "fs not confined: "+why)
	}
	switch whyNS := off("net", plat.NoNetNS); {
	case whyNS == "":
		r.layers.Net = "netns"
	case r.abi >= 4 && s.Unavailable["net"] == "":
		r.layers.Net = "landlock"
		note := "net confined by Landlock's TCP rules, not a namespace (" + whyNS + "): TCP connects reach only the proxy"
		if r.abi < 10 {
			note += "; UDP, MPTCP and raw sockets are not confined (Landlock ABI < 10)"
		}
		r.notes = append(r.notes, note)
	default:
		r.notes = append(r.notes, "net not confined: "+whyNS+"; agents are only asked to use the proxy (HTTPS_PROXY)")
	}
	if plat.Root {
		if why := off("user", plat.NoUser); why == "" {
			r.uid, r.gid = UnprivilegedUID, UnprivilegedGID
			r.layers.User = "unprivileged"
		} else {
			r.notes = append(r.notes, "user not changed: optr runs as root and "+why)
		}
	}
	if pol.Any() {
		r.notes = append(r.notes, `sandbox.network is "*": agents may reach any public host through the proxy (each is recorded)`)
	}
	if r.layers.Mode == config.SandboxStrict {
		if missing := r.missing(plat.Root); len(missing) > 0 {
			return &StrictError{Missing: missing, Notes: r.notes}
		}
	}
	if err := nonDumpable(); err != nil {
		return fmt.Errorf("make optr non-dumpable: %w", err)
	}
	r.started = true
	return nil
}

// StrictError is strict mode refusing a machine that cannot enforce every
// layer.
type StrictError struct {
	// Missing are the layers that cannot be enforced; Notes say why.
	Missing, Notes []string
}

func (e *StrictError) Error() string {
	return fmt.Sprintf("sandbox.mode is strict, but this machine cannot enforce %s: %s; no agent was started. Run where the kernel allows it, or set sandbox.mode: auto to run with what it allows",
		strings.Join(e.Missing, ", "), strings.Join(e.Notes, "; "))
}

// missing lists the layers strict mode requires and the run lacks.
func (r *Run) missing(root bool) []string {
	var m []string
	if r.layers.FS == "none" {
		m = append(m, "fs")
	}
	if r.layers.Net == "none" {
		m = append(m, "net")
	}
	if root && r.layers.User != "unprivileged" {
		m = append(m, "user")
	}
	return m
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
