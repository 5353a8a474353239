// Command optr-sandbox-launcher is optr's sandbox launcher on its own: the
// small program optr starts, when it lies beside optr's executable, to
// confine an agent or a check and start it (package
// internal/sandbox/launcher/child does all of it, from its init). Without
// it optr starts its own, much larger executable as the launcher; this
// one links only what confinement needs, so each launch costs a fraction
// of the CPU. It refuses a launch from an optr of another build.
//
// It is not meant to be run by hand: started otherwise than by optr, it
// says so and exits 2.
package main

import (
	"os"

	// Its init is the launcher: it runs and exits when optr started this
	// process (child.Marker is set).
	_ "github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

func main() {
	os.Stderr.WriteString("optr-sandbox-launcher confines the agents optr starts and is started by optr only: keep it beside the optr executable (" +
		"optr uses it from there) and run optr instead\n")
	os.Exit(2)
}
