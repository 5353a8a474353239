//go:build !linux

package launcher

// helperMode: the Linux tests' programs have no counterpart elsewhere.
func helperMode() (int, bool) { return 0, false }
