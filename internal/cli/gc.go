package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync/atomic"
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
	// largeHeap is the live heap at which the run's settings give way to
	// the runtime's defaults (GOGC 100, no limit): from there on the
	// percentage would take the heap past the soft limit, and a live heap
	// near the limit makes the collector run far more often (110 MiB live,
	// as a json-schema check of a large answer may hold: 99 collections
	// where the defaults made 13 for the same work). A run that large
	// collects as any Go program does.
	largeHeap = runMemoryLimit / (1 + runGCPercent/100)
)

// agentCommands are the commands that run agents: each lives for one run.
var agentCommands = []string{"run", "action", "task", "resume"}

// TuneGC sets the garbage collector for the command args name: for a
// command that runs agents, a larger GOGC under a soft memory limit
// (runGCPercent, runMemoryLimit) while the live heap stays small
// (largeHeap); for any other command, or when the environment sets GOGC
// or GOMEMLIMIT (read through getenv), it changes nothing. The binary's
// main calls it once, before the command runs; it is not part of CLI.Run,
// which tests call in their own process.
func TuneGC(args []string, getenv func(string) string) {
	if len(args) == 0 || !slices.Contains(agentCommands, args[0]) || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(runGCPercent)
	debug.SetMemoryLimit(runMemoryLimit)
	if watching.CompareAndSwap(false, true) {
		watchHeap()
	}
}

// watching is set while a collection is awaited to look at the heap.
var watching atomic.Bool

// heapChecked, when set (by tests), learns each look at the heap after
// a collection, and whether it gave the runtime its defaults back.
var heapChecked atomic.Pointer[func(restored bool)]

// sentinel is an object made to become garbage: its cleanup runs after
// the collection that finds it so.
type sentinel struct {
	_ *byte // pointerful, so never one of the tiny objects whose cleanups may not run
	_ [8]byte
}

// watchHeap looks at the live heap after the next collection: while it
// is under largeHeap it watches again; once it is not, the runtime's
// defaults come back and the watch ends.
func watchHeap() {
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		restored := liveHeap() >= largeHeap
		if restored {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			watching.Store(false)
		} else {
			watchHeap()
		}
		if f := heapChecked.Load(); f != nil {
			(*f)(restored)
		}
	}, struct{}{})
}

// liveHeap is the heap the last collection found live, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
