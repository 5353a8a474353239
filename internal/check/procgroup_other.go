//go:build !unix

package check

import "os/exec"

// ownProcessGroup leaves cmd as it is: without Unix process groups, a timeout
// kills the check's own process (os/exec's default) but not its children.
func ownProcessGroup(*exec.Cmd) {}
