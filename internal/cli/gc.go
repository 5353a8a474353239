package cli

import (
	"runtime/debug"
	"slices"
)

// The garbage collector's settings for a process that runs agents.
const (
	// runGCPercent lets the heap grow to five times what is live before a
	// collection: a run's heap is a few MiB and short-lived, so most runs
	// end before the first collection instead of after half a dozen (7 %
	// of optr's CPU with 64 LLM agents, on the wall when the machine is
	// busy).
	runGCPercent = 400
	// runMemoryLimit is the soft limit that bounds the heap the larger
	// percentage would let grow (optr-bench P10: peak RSS with four
	// 50 MiB outputs).
	runMemoryLimit = 128 << 20
)

// agentCommands are the commands that run agents: each lives for one run.
var agentCommands = []string{"run", "action", "task", "resume"}

// TuneGC sets the garbage collector for the command args name: for a
// command that runs agents, a larger GOGC under a soft memory limit
// (runGCPercent, runMemoryLimit); for any other command, or when the
// environment sets GOGC or GOMEMLIMIT (read through getenv), it changes
// nothing. The binary's main calls it once, before the command runs; it is
// not part of CLI.Run, which tests call in their own process.
func TuneGC(args []string, getenv func(string) string) {
	if len(args) == 0 || !slices.Contains(agentCommands, args[0]) || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(runGCPercent)
	debug.SetMemoryLimit(runMemoryLimit)
}
