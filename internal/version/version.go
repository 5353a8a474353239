// Package version reports which optr this is: the version stamped in at
// build time with -ldflags "-X github.com/optr-dev/optr/internal/version.Version=v1.2.3",
// or else what the Go toolchain recorded in the binary.
package version

import "runtime/debug"

// Version is set at build time; empty means "ask the build info".
var Version = ""

// String returns the version, e.g. "v1.2.3" or "(devel) 3f2a9c1".
func String() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 7 {
			return v + " " + s.Value[:7]
		}
	}
	return v
}
