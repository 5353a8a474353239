package child

import "golang.org/x/sys/unix"

// auditArch is the architecture a seccomp filter admits; x32Bit marks the
// calls of the x32 ABI, which it refuses with every other architecture's.
const (
	auditArch = unix.AUDIT_ARCH_X86_64
	x32Bit    = 0x40000000
)
