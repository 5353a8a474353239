//go:build !unix

package main

import "os"

// peakRSS is not measured where the system does not report it.
func peakRSS(*os.ProcessState) int64 { return 0 }
