package child

// Marker is the variable that makes a process a launcher; its value is
// the control socket's descriptor number.
const Marker = "OPTR_SANDBOX_LAUNCHER"

// RelayArg is the first argument of a launcher started through sudo:
// the socket to connect to and the network layer follow it (relay).
const RelayArg = "--optr-sandbox-relay"

// ControlFD is the control socket's descriptor in the launcher: the first
// of the extra files its parent passes.
const ControlFD = 3

// Network layers a Spec may ask for.
const (
	// NetNamespace: the launcher runs in a network namespace of its own
	// and listens there on 127.0.0.1:ProxyPort for the parent's proxy.
	NetNamespace = "netns"
	// NetLandlock: Landlock's TCP rules allow connect(2) only to
	// ProxyPort.
	NetLandlock = "landlock"
)

// Spec is what the launcher does before it starts Path. It travels as
// JSON over the control socket.
type Spec struct {
	// Build is the sender's Build: the launcher refuses a Spec from
	// another build.
	Build string `json:"build"`
	// Path, Args and Env are the program, its argv (Args[0] included) and
	// its whole environment.
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	// FS is the Landlock file system ruleset; nil enforces none.
	FS *FSRules `json:"fs,omitempty"`
	// Net is NetNamespace, NetLandlock or empty (no network confinement).
	Net string `json:"net,omitempty"`
	// ProxyPort is the proxy's port as the program sees it.
	ProxyPort int `json:"proxy_port,omitempty"`
	// ABI is the Landlock ABI version to enforce (0: none at all).
	ABI int `json:"abi,omitempty"`
	// UID and GID, when UID is not negative, are the user the program
	// runs as, with no supplementary group: how a root optr runs
	// processes as an unprivileged user.
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Maps, for a launcher in a user namespace of its own (an
	// unprivileged optr's NetNamespace), are the ids it maps to
	// themselves there, writing its own uid and gid maps: optr, being
	// non-dumpable, may not write them.
	Maps *IDs `json:"maps,omitempty"`
	// Seccomp, when set, is the seccomp layer: the filter the launcher
	// installs after no_new_privs and Landlock, and what its supervisor
	// lets through.
	Seccomp *SeccompRules `json:"seccomp,omitempty"`
	// Relayed is a launcher started through sudo (relay): its parent is
	// sudo, and optr's death is the end of the control socket.
	Relayed bool `json:"relayed,omitempty"`
	// Probe makes the launcher do everything but start the program, and
	// exit 0.
	Probe bool `json:"probe,omitempty"`
}

// SeccompRules are what the launcher's seccomp filter and its supervisor
// allow (architecture §4.14). Sockets: AF_UNIX stream and seqpacket, TCP
// over IPv4 and IPv6, nothing else (EPERM); no io_uring; no sendto with
// an address, no TCP fast open. Every connect(2) is the supervisor's: it
// reads the address, decides, and, when it allows, opens the connection
// itself and puts it in place of the program's socket, so that what was
// checked is what is connected.
type SeccompRules struct {
	// Connect are the TCP addresses ("127.0.0.1:8080") the program may
	// connect to: the proxy's (which serves the model gateway too), and
	// any loopback address where the program or a descendant listens.
	// Empty with NetNamespace: any address, since the namespace holds
	// them all.
	Connect []string `json:"connect,omitempty"`
	// UnixDirs are the directories of the program's own in which it may
	// connect to a Unix socket its own user bound (its HOME and TMPDIR,
	// its repository); UnixPaths are sockets of optr's it may connect to.
	// Nothing else: not the Docker socket, not an abstract socket.
	UnixDirs  []string `json:"unix_dirs,omitempty"`
	UnixPaths []string `json:"unix_paths,omitempty"`
	// Signals scopes signals (kill, tgkill, …, F_SETOWN) to the launcher
	// and its descendants: what Landlock does from ABI 6 on.
	Signals bool `json:"signals,omitempty"`
}

// IDs are a user's uid and gid.
type IDs struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// FSRules are the paths the program may use. Everything else is denied
// for the access rights the ABI handles.
type FSRules struct {
	// ReadDirs and ReadFiles may be read and executed, directories
	// listed; Write* also written, created, removed and renamed within.
	ReadDirs   []string `json:"read_dirs,omitempty"`
	ReadFiles  []string `json:"read_files,omitempty"`
	WriteDirs  []string `json:"write_dirs,omitempty"`
	WriteFiles []string `json:"write_files,omitempty"`
	// Devices are device files and directories of them (terminals) that
	// may be read, written and given ioctls.
	Devices []string `json:"devices,omitempty"`
}

// Reply is one message of the launcher on the control socket, each with
// its Build and what it can enforce (ABI, NoSeccomp): OK once it is
// confined (with, for NetNamespace, the listening socket attached), then
// Running once the program runs, or an Error with Stage "exec" when it
// could not be started; then an Event for each thing the seccomp layer
// refused, until the launcher ends.
type Reply struct {
	OK      bool   `json:"ok,omitempty"`
	Running bool   `json:"running,omitempty"`
	Error   string `json:"error,omitempty"`
	// Stage names the step that failed: "spec", "build", "maps", "net",
	// "user", "caps", "landlock", "seccomp", "reaper", "exec".
	Stage string `json:"stage,omitempty"`
	// Build is the launcher's Build.
	Build string `json:"build,omitempty"`
	// ABI is the Landlock ABI the launcher can enforce (0: none), and
	// NoSeccomp why it cannot install the seccomp layer ("" when it can).
	ABI       int    `json:"abi"`
	NoSeccomp string `json:"no_seccomp,omitempty"`
	// Event is something the seccomp layer refused.
	Event *Event `json:"event,omitempty"`
}

// An Event is a connection or a signal the seccomp layer refused.
type Event struct {
	// Kind is "connect" or "signal".
	Kind string `json:"kind"`
	// Addr is where a connect went: "ip:port", "unix:/path", "unix:@name"
	// (abstract).
	Addr string `json:"addr,omitempty"`
	// Signal and Target are a refused signal and the pid (or -pgid) it
	// was for.
	Signal int `json:"signal,omitempty"`
	Target int `json:"target,omitempty"`
	// Reason says why it was refused.
	Reason string `json:"reason"`
}
