//go:build !unix

package fifotest

import (
	"runtime"
	"testing"
)

// Make skips the test: there are no named pipes in the file system here.
func Make(t testing.TB, path string) {
	t.Helper()
	t.Skipf("no FIFO at %s: %s has no named pipes in its file system", path, runtime.GOOS)
}
