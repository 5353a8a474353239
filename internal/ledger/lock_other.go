//go:build !unix

package ledger

import (
	"os"
	"sync"
)

// Without flock, appends are serialised within this process only: two
// processes appending to one ledger at once could interleave. optr's
// container and its supported platforms are all unix.
var processLock sync.Mutex

func lockFile(*os.File, bool) error {
	processLock.Lock()
	return nil
}

func unlockFile(*os.File) error {
	processLock.Unlock()
	return nil
}
