package child

import "golang.org/x/sys/unix"

// auditArch is the architecture a seccomp filter admits (arm64 has no
// second ABI to refuse: x32Bit is 0).
const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32Bit    = 0
)
