//go:build linux

// Command rsschild runs a command and writes its peak resident set size,
// in KiB, to a file: rsschild OUT argv…. Started from this small
// program rather than from the test, the figure is the command's own: on
// Linux a process's peak counts the memory of the process it was forked
// from until it execs.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rsschild:", err)
		os.Exit(125)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if werr := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d\n", rss), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "rsschild:", werr)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
