package launcher

import "github.com/optr-dev/optr/internal/sandbox/launcher/child"

// Network layers a Spec may ask for (see package child).
const (
	NetNamespace = child.NetNamespace
	NetLandlock  = child.NetLandlock
)

// Marker is the variable that makes a process a launcher.
const Marker = child.Marker

// Spec is what the launcher does before it starts the program.
type Spec = child.Spec

// FSRules are the paths the program may use.
type FSRules = child.FSRules

// SeccompRules are what the seccomp layer lets through.
type SeccompRules = child.SeccompRules

// IDs are a user's uid and gid.
type IDs = child.IDs

// Event is something the seccomp layer refused.
type Event = child.Event
