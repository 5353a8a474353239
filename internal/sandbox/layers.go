package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Layers is what a run enforces, as the ledger's run entry records it
// (`sandbox`).
type Layers struct {
	// Mode is sandbox.mode: auto, strict or off.
	Mode string `json:"mode"`
	// Env is "built" (by construction) or "inherited" (mode off).
	Env string `json:"env"`
	// FS is "landlock-vN" or "none".
	FS string `json:"fs"`
	// Net is the layer that holds egress to the proxy: "netns" (a network
	// namespace of the process's own), "seccomp" (the launcher's seccomp
	// filter, which connects only to the proxy itself), "landlock-tcp"
	// (Landlock's TCP rule alone: the proxy's port on any address, and
	// UDP, ICMP and MPTCP open) or "none".
	Net string `json:"net"`
	// Scope is what keeps a process from signalling processes not its
	// own (optr, the runner, another agent) and from connecting to
	// abstract and path Unix sockets not its own (the Docker socket):
	// "seccomp" (the seccomp layer does it all), "landlock+seccomp"
	// (Landlock, ABI 6 or more, signals and abstract sockets; the seccomp
	// layer the rest), "landlock" (Landlock ABI 9 or more, alone) or
	// "none" (not all of it).
	Scope string `json:"scope"`
	// User is "unprivileged" or "same".
	User string `json:"user"`
	// Groups says whether processes keep the supplementary groups of
	// optr's user (the hosted runner's `docker`, which opens docker.sock):
	// "dropped" (a root optr's unprivileged user; a non-root optr's own
	// user, started through sudo), "kept" or "none" (optr's user has none).
	Groups string `json:"groups,omitempty"`
}

// String is the one line a run's log, step summary and comment show.
func (l Layers) String() string {
	s := fmt.Sprintf("sandbox (%s): env %s, fs %s, net %s", l.Mode, l.Env, l.FS, l.Net)
	if l.Scope != "" {
		s += ", scope " + l.Scope
	}
	s += ", user " + l.User
	if l.Groups != "" {
		s += ", groups " + l.Groups
	}
	return s
}

// NetComplete reports whether every connection a process makes is seen:
// with its egress held by a namespace or the seccomp layer, a process
// reaches nothing but the proxy, so the hosts the proxy recorded are all
// it reached; otherwise bytes may have left directly, unrecorded.
func (l Layers) NetComplete() bool { return l.Net == "netns" || l.Net == "seccomp" }

// decision is what a run enforces on plat as s asks: its layers, what it
// says about them, and what strict mode would refuse.
type decision struct {
	layers  Layers
	abi     int
	seccomp bool
	// sudo is the sudo that starts launchers ("" when none does).
	sudo  string
	notes []string
	// missing are the promises strict mode requires that do not hold,
	// each "layer: reason".
	missing []string
}

// decide turns what this machine allows into the run's layers. Every
// layer the platform allows is used; a layer s.Unavailable names is
// taken as not allowed, with its reason.
func decide(plat Platform, s Settings, mode string) decision {
	d := decision{layers: Layers{Mode: mode, Env: "built", FS: "none", Net: "none", Scope: "none", User: "same"}}
	why := func(layer, reason string) string {
		if r := s.Unavailable[layer]; r != "" {
			return r
		}
		return reason
	}
	miss := func(layer, reason string) { d.missing = append(d.missing, layer+": "+reason) }

	if noFS := why("fs", plat.NoLandlock); noFS == "" {
		d.abi = plat.ABI
		d.layers.FS = "landlock-v" + strconv.Itoa(plat.ABI)
	} else {
		d.notes = append(d.notes, "fs not confined: "+noFS)
		miss("fs", noFS)
	}
	noSeccomp := why("seccomp", plat.NoSeccomp)
	d.seccomp = noSeccomp == ""

	noNS := why("net", plat.NoNetNS)
	switch {
	case noNS == "":
		d.layers.Net = "netns"
	case d.seccomp:
		d.layers.Net = "seccomp"
		d.notes = append(d.notes, "net held by the seccomp layer, not a namespace ("+noNS+"): a process connects only to the proxy, which the launcher connects for it")
	case d.abi >= 4:
		d.layers.Net = "landlock-tcp"
		d.notes = append(d.notes, "net held only by Landlock's TCP rule (no namespace: "+noNS+"; no seccomp layer: "+noSeccomp+
			"): it allows the proxy's port on any address, and UDP (DNS), ICMP ping sockets and MPTCP are open; what leaves that way bypasses the proxy and is not in any agent's network record")
		miss("net", "no namespace ("+noNS+") and no seccomp layer ("+noSeccomp+"); Landlock's TCP rule allows the proxy's port on every address")
	default:
		d.notes = append(d.notes, "net not confined: "+noNS+"; no seccomp layer: "+noSeccomp+"; agents are only asked to use the proxy (HTTPS_PROXY), and what leaves directly is not in any agent's network record")
		miss("net", noNS+"; no seccomp layer: "+noSeccomp)
	}

	// Signals and abstract sockets: Landlock from ABI 6, else the seccomp
	// layer; Unix sockets by path: Landlock from ABI 9, else the seccomp
	// layer.
	signals, paths := d.abi >= 6, d.abi >= 9
	switch {
	case d.seccomp && signals:
		d.layers.Scope = "landlock+seccomp"
	case d.seccomp:
		d.layers.Scope = "seccomp"
	case signals && paths:
		d.layers.Scope = "landlock"
	default:
		var open []string
		if !signals {
			open = append(open, "signal optr, the runner and other agents of its user", "connect to abstract Unix sockets")
		}
		open = append(open, "connect to Unix sockets by path (the Docker socket, where its user may)")
		reason := "no seccomp layer (" + noSeccomp + ") and Landlock ABI " + strconv.Itoa(d.abi) + " (signals and abstract sockets need 6, Unix sockets by path 9)"
		d.notes = append(d.notes, "scope not held: a process may "+strings.Join(open, ", ")+": "+reason)
		miss("scope", reason)
	}

	if plat.Root {
		if noUser := why("user", plat.NoUser); noUser == "" {
			d.layers.User, d.layers.Groups = "unprivileged", "dropped"
		} else {
			d.layers.Groups = "kept"
			d.notes = append(d.notes, "user not changed: optr runs as root and "+noUser)
			miss("user", "optr runs as root and "+noUser)
		}
		return d
	}
	d.groups(plat, why("groups", plat.NoSudo), miss)
	return d
}

// groups decides whether a non-root optr's processes keep its user's
// supplementary groups: with sudo they run as its user without them
// (plat.Sudo); otherwise they keep them (noSudo says why), which strict
// refuses.
func (d *decision) groups(plat Platform, noSudo string, miss func(layer, reason string)) {
	switch {
	case len(plat.Groups) == 0:
		d.layers.Groups = "none"
		return
	case plat.Sudo != "" && noSudo == "":
		d.layers.Groups, d.sudo = "dropped", plat.Sudo
		return
	}
	d.layers.Groups = "kept"
	if noSudo == "" {
		noSudo = "sudo was not probed"
	}
	gids := make([]string, len(plat.Groups))
	for i, g := range plat.Groups {
		gids[i] = strconv.Itoa(g)
	}
	reason := "agents keep optr's supplementary groups (" + strings.Join(gids, ", ") + "): only root may drop them, and " + noSudo
	note := reason + "; a file those groups may read is open to agents where Landlock lets them read"
	if d.layers.Scope != "none" {
		note += "; the Unix sockets those groups may open (the Docker socket) are refused"
	}
	d.notes = append(d.notes, note)
	miss("groups", reason)
}
