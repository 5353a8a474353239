//go:build unix

package main

import (
	"os"
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
