//go:build unix

package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peakRSS is a finished process's peak resident set size in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return 0
}

// ownPeakRSS is this process's peak resident set size in bytes since it
// exec'd (VmHWM), 0 where /proc does not say. A child's rusage cannot
// tell: Go starts a child with vfork, so the exec records the parent's
// peak as the child's (Linux's setmax_mm_hiwater_rss), and every child of
// a large parent reported the parent's RSS.
func ownPeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
