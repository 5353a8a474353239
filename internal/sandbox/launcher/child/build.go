package child

import (
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Protocol is the version of the Spec and Reply as this build writes and
// reads them. Change it with any change to either that an older launcher
// would misread.
const Protocol = 2

// Build identifies this build of the launcher protocol: the Protocol, the
// Go toolchain, the main module's version, the build tags, and the VCS
// revision as the go command stamped them. optr sends its own in the Spec; a launcher whose
// Build differs refuses the Spec (stage "build") before it confines or
// starts anything, and answers with its own, so that a launcher from
// another build is never used silently. Two binaries built from one
// checkout and one toolchain (release.sh, the Dockerfile) agree; a build
// without VCS information (go build -buildvcs=false) is told apart by
// version and toolchain only.
var Build = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteString("protocol " + strconv.Itoa(Protocol))
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b.String()
	}
	b.WriteString(", " + info.GoVersion + ", " + info.Main.Path + "@" + info.Main.Version)
	for _, s := range info.Settings {
		switch s.Key {
		case "-tags":
			b.WriteString(", tags " + s.Value)
		case "vcs.revision":
			b.WriteString(", revision " + s.Value)
		case "vcs.modified":
			if s.Value == "true" {
				b.WriteString(" (modified)")
			}
		}
	}
	return b.String()
})
