package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestTuneGC: the commands that run agents get the run's GOGC and memory
// limit; other commands, and an environment that sets either, keep the
// runtime's own. Not parallel: the settings are the process's.
func TestTuneGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	noEnv := func(string) string { return "" }
	tests := []struct {
		args    []string
		getenv  func(string) string
		percent int
		limit   int64
	}{
		{[]string{"run", "--intent", "x"}, noEnv, runGCPercent, runMemoryLimit},
		{[]string{"action"}, noEnv, runGCPercent, runMemoryLimit},
		{[]string{"task"}, noEnv, runGCPercent, runMemoryLimit},
		{[]string{"resume"}, noEnv, runGCPercent, runMemoryLimit},
		{[]string{"ledger", "verify"}, noEnv, 100, math.MaxInt64},
		{nil, noEnv, 100, math.MaxInt64},
		{[]string{"run"}, func(k string) string { return map[string]string{"GOGC": "50"}[k] }, 100, math.MaxInt64},
		{[]string{"run"}, func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, 100, math.MaxInt64},
	}
	for _, tt := range tests {
		TuneGC(tt.args, tt.getenv)
		if got := debug.SetGCPercent(100); got != tt.percent {
			t.Errorf("%q: GOGC %d, want %d", tt.args, got, tt.percent)
		}
		if got := debug.SetMemoryLimit(math.MaxInt64); got != tt.limit {
			t.Errorf("%q: memory limit %d, want %d", tt.args, got, tt.limit)
		}
	}
}

// TestTuneGCGivesWayToALargeHeap: while the live heap is small the run's
// settings stay; once a collection finds largeHeap live, the runtime's
// defaults come back, so that a run holding that much does not collect
// back to back under the soft limit. Not parallel: the settings are the
// process's.
func TestTuneGCGivesWayToALargeHeap(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	checked := make(chan bool, 16)
	report := func(restored bool) { checked <- restored }
	heapChecked.Store(&report)
	t.Cleanup(func() {
		heapChecked.Store(nil)
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	noEnv := func(string) string { return "" }

	TuneGC([]string{"run"}, noEnv)
	runtime.GC()
	if restored := <-checked; restored || liveHeap() >= largeHeap {
		t.Fatalf("a live heap of %d bytes gave the defaults back (restored %v), want the run's settings under %d", liveHeap(), restored, largeHeap)
	}
	if got := debug.SetGCPercent(runGCPercent); got != runGCPercent {
		t.Fatalf("GOGC %d after a small heap, want %d", got, runGCPercent)
	}

	big := make([]byte, largeHeap+(8<<20))
	for i := range big {
		big[i] = byte(i)
	}
	restored := false
	for range 5 { // a collection between the two looks may report first
		runtime.GC()
		if restored = <-checked; restored {
			break
		}
	}
	runtime.KeepAlive(big)
	if !restored {
		t.Fatalf("a live heap of %d bytes did not give the defaults back", liveHeap())
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after a large heap, want 100", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("memory limit %d after a large heap, want none", got)
	}
	if watching.Load() {
		t.Error("the heap is still watched after the defaults came back")
	}
}
