//go:build !unix

package inputfile

// nonBlock is nothing where there are no FIFOs to block on.
const nonBlock = 0
