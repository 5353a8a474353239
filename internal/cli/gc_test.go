package cli

import (
	"math"
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
