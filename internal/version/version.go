// Package version reports which optr this is: the version stamped in at
// build time with -ldflags "-X github.com/optr-dev/optr/internal/version.Version=v1.2.3"
// (scripts/release.sh and the Dockerfile do), or else what the Go toolchain
// recorded in the binary (go install, go build in a checkout).
package version

import "runtime/debug"

// Version is set at build time; empty means "ask the build info".
var Version = ""

// String returns the version, e.g. "v1.2.3" or "(devel) 3f2a9c1".
func String() string {
	info, ok := debug.ReadBuildInfo()
	return describe(Version, info, ok)
}

// describe is String without the globals: the stamped version when there is
// one, else the module version with the commit it was built from.
func describe(stamped string, info *debug.BuildInfo, ok bool) string {
	if stamped != "" {
		return stamped
	}
	if !ok || info == nil {
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
