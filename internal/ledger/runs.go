package ledger

// ActiveHasRun reports whether the active segment of the ledger at path
// (at most SegmentLimit bytes, never the sealed ones) holds an entry of
// run. A run's entries are appended at its end, into the active segment,
// so a run that was just recorded is found there; a missing ledger holds
// none. Lines that do not parse are skipped: verify reports them.
func ActiveHasRun(path, run string) (bool, error) {
	return segmentHasRun(path, run)
}
