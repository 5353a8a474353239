//go:build linux && !amd64 && !arm64

package child

// No seccomp filter is written for this architecture (optr is released
// for amd64 and arm64): auditArch 0 makes the launcher report the layer
// unavailable.
const (
	auditArch = 0
	x32Bit    = 0
)
