//go:build !unix

package beneath

// nonBlock is nothing where there are no FIFOs to block on.
const nonBlock = 0
