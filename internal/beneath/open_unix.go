//go:build unix

package beneath

import "syscall"

// nonBlock makes open(2) return at once on a FIFO that has no writer.
const nonBlock = syscall.O_NONBLOCK
