package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/inputfile"
)

// ActiveHasRun reports whether the active segment of the ledger at path
// (at most SegmentLimit bytes, never the sealed ones) holds an entry of
// run. A run's entries are appended at its end, into the active segment,
// so a run that was just recorded is found there; a missing ledger holds
// none. Lines that do not parse are skipped: verify reports them.
func ActiveHasRun(path, run string) (bool, error) {
	f, err := inputfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read ledger: %w", err)
	}
	defer f.Close()
	want := []byte(run)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), MaxLineSize+1)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, want) {
			continue
		}
		if info, lerr := parseLine(line); lerr == nil && bytes.Equal(info.run, want) {
			return true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("read ledger %s: %w", path, err)
	}
	return false, nil
}
