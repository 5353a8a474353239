package cli

import (
	"fmt"
	"io"
)

// readAllLimited reads r to the end, refusing more than limit bytes.
func readAllLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return data, nil
}

// maxSmallFile bounds the small files a user names (checkpoints, keys,
// proofs): a proof of a 2^63-entry log is under 4 KiB.
const maxSmallFile = 1 << 20

// errArgs reports positional arguments a command does not take.
func errArgs(cmd string, args []string) error {
	return fmt.Errorf("%s takes no arguments, got %q", cmd, args)
}
