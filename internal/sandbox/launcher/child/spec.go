package child

// Marker is the variable that makes a process a launcher; its value is
// the control socket's descriptor number.
const Marker = "OPTR_SANDBOX_LAUNCHER"

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
	// Probe makes the launcher do everything but start the program, and
	// exit 0.
	Probe bool `json:"probe,omitempty"`
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

// Reply is the launcher's answer on the control socket, with its Build:
// OK once it is confined (with, for NetNamespace, the listening socket attached), then,
// only when the program could not be started, an Error with Stage "exec".
// The socket's end of file after OK means the program runs.
type Reply struct {
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
	// Stage names the step that failed: "spec", "build", "net", "user",
	// "caps", "landlock", "reaper", "exec".
	Stage string `json:"stage,omitempty"`
	// Build is the launcher's Build.
	Build string `json:"build,omitempty"`
}
