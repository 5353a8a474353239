//go:build unix && !linux

package procgroup

// track does nothing where there is no child subreaper.
func track() {}

// untrack does nothing where there is no child subreaper.
func untrack(int) {}
