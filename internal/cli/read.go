package cli

import (
	"fmt"
)

// maxSmallFile bounds the small files a user names (checkpoints, keys,
// proofs): a proof of a 2^63-entry log is under 4 KiB.
const maxSmallFile = 1 << 20

// errArgs reports positional arguments a command does not take.
func errArgs(cmd string, args []string) error {
	return fmt.Errorf("%s takes no arguments, got %q", cmd, args)
}
