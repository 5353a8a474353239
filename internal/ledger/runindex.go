package ledger

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
)

// A sealed segment's run index lists, in a compact form, the run ids its
// entries name, so that a new run can be refused a run id the ledger
// already holds without reading the whole ledger (a run id is recorded
// once, architecture §4.3). It lives beside the ledger, not in ledger.d (which
// holds only what commit-back and witnesses read), as
// .<ledger file>.runs/<first>-<last>.idx:
//
//	optr ledger runs 1\n
//	<hash of the segment's last entry>\n
//	<sorted, distinct 8-byte prefixes of SHA-256(run id), big-endian>
//
// It is derived data, like a tree file: written when it is missing or no
// longer names its segment's last entry, never trusted for more than a
// hint — a prefix that matches is confirmed in the segment itself.

// runIndexMagic is the first line of a run index.
const runIndexMagic = "optr ledger runs 1\n"

// runIndexDir is where the run indexes of the ledger at path live.
func runIndexDir(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".runs")
}

// HasRun reports whether the ledger at path holds an entry of run: its
// active segment is read, and each sealed segment only through its run
// index (built the first time it is needed), so the cost does not grow
// with the ledger's length but with its number of segments. A missing
// ledger holds none.
func HasRun(path, run string) (bool, error) {
	if ok, err := ActiveHasRun(path, run); ok || err != nil {
		return ok, err
	}
	segs, err := Segments(path)
	if err != nil {
		return false, err
	}
	key := runKey(run)
	for _, s := range segs {
		idx, err := segmentRuns(path, s)
		if err != nil {
			return false, err
		}
		if _, found := slices.BinarySearch(idx, key); !found {
			continue
		}
		if ok, err := segmentHasRun(s.Path, run); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// runKey is the index's key of a run id.
func runKey(run string) uint64 {
	sum := sha256.Sum256([]byte(run))
	return binary.BigEndian.Uint64(sum[:8])
}

// segmentRuns returns the run index of the sealed segment s, reading it
// when it names the segment's last entry, else building and writing it.
func segmentRuns(path string, s Segment) ([]uint64, error) {
	head, err := segmentHead(s)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(runIndexDir(path), strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")+".idx")
	if keys, ok := readRunIndex(file, head); ok {
		return keys, nil
	}
	keys, err := buildRunIndex(s.Path)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(runIndexMagic + head + "\n")
	for _, k := range keys {
		_ = binary.Write(&b, binary.BigEndian, k)
	}
	if os.MkdirAll(filepath.Dir(file), 0o755) == nil {
		writeTree(file, b.Bytes()) // derived data: a failed write only costs the next run a rebuild
	}
	return keys, nil
}

// segmentHead is the hash of the last entry of the sealed segment s, read
// from its last line alone.
func segmentHead(s Segment) (string, error) {
	f, err := inputfile.Open(s.Path)
	if err != nil {
		return "", fmt.Errorf("read ledger segment: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return "", fmt.Errorf("read ledger segment %s: it is empty or unreadable (%v); run `optr ledger verify`", s.Path, err)
	}
	line, _, err := lastLine(f, fi.Size()-1)
	if err != nil {
		return "", fmt.Errorf("ledger segment %s: %w", s.Path, err)
	}
	info, lerr := parseLine(line)
	if lerr != nil {
		return "", fmt.Errorf("ledger segment %s: %w; run `optr ledger verify`", s.Path, lerr.at(s.Last))
	}
	return string(info.hash), nil
}

// readRunIndex reads the run index at file when it names head.
func readRunIndex(file, head string) ([]uint64, bool) {
	data, err := inputfile.ReadFile(file, 64<<20)
	if err != nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(data, []byte(runIndexMagic+head+"\n"))
	if !ok || len(rest)%8 != 0 {
		return nil, false
	}
	keys := make([]uint64, len(rest)/8)
	for i := range keys {
		keys[i] = binary.BigEndian.Uint64(rest[8*i:])
	}
	if !slices.IsSorted(keys) {
		return nil, false
	}
	return keys, true
}

// buildRunIndex reads a sealed segment's run ids into index keys.
func buildRunIndex(path string) ([]uint64, error) {
	var keys []uint64
	err := scanSegment(path, nil, func(info lineInfo) bool {
		keys = append(keys, runKey(string(info.run)))
		return false
	})
	slices.Sort(keys)
	return slices.Compact(keys), err
}

// segmentHasRun reads the segment at path for an entry of run.
func segmentHasRun(path, run string) (bool, error) {
	found := false
	err := scanSegment(path, []byte(run), func(info lineInfo) bool {
		found = string(info.run) == run
		return found
	})
	return found, err
}

// scanSegment calls fn with each line of the segment file at path that
// parses (and holds the bytes of want, when given), until fn returns true.
// Lines that do not parse are skipped: verify reports them.
func scanSegment(path string, want []byte, fn func(lineInfo) bool) error {
	f, err := inputfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read ledger: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), MaxLineSize+1)
	for sc.Scan() {
		if want != nil && !bytes.Contains(sc.Bytes(), want) {
			continue
		}
		if info, lerr := parseLine(sc.Bytes()); lerr == nil && fn(info) {
			return nil
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read ledger %s: %w", path, err)
	}
	return nil
}
