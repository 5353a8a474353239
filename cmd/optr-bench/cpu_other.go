//go:build !unix

package main

import "time"

// cpuTime is not measured where the system does not report it.
func cpuTime() time.Duration { return 0 }
