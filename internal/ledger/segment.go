package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
)

// SegmentLimit is the size the active segment may reach (architecture §4.3): an
// append that would take it past this is preceded by sealing it.
const SegmentLimit = 8 << 20

// segmentDigits is how many digits a sealed segment's seq numbers have in
// its file name.
const segmentDigits = 12

// Segment is one sealed segment of a ledger: the file
// <dir>/ledger.d/<first>-<last>.jsonl, holding entries First to Last.
type Segment struct {
	// Path is the segment's file.
	Path string
	// First and Last are the seq of its first and last entry, as its
	// name says.
	First, Last int64
}

// SegmentDir is the directory that holds the sealed segments of the ledger
// whose active segment is path: ledger.d beside ledger.jsonl (for another
// name, <stem>.d beside <stem>.jsonl).
func SegmentDir(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return filepath.Join(filepath.Dir(path), base+".d")
}

// SegmentName is the file name of a sealed segment holding entries first
// to last: both zero-padded to 12 digits.
func SegmentName(first, last int64) string {
	return fmt.Sprintf("%0*d-%0*d.jsonl", segmentDigits, first, segmentDigits, last)
}

// ParseSegmentName reads first and last back from a segment's file name.
func ParseSegmentName(name string) (first, last int64, err error) {
	stem, ok := strings.CutSuffix(name, ".jsonl")
	a, b, dash := strings.Cut(stem, "-")
	if !ok || !dash || len(a) != segmentDigits || len(b) != segmentDigits {
		return 0, 0, fmt.Errorf("segment %q is not named <first>-<last>.jsonl with 12-digit seq numbers", name)
	}
	first, ok1 := digits(a)
	last, ok2 := digits(b)
	if !ok1 || !ok2 || first < 1 || last < first {
		return 0, 0, fmt.Errorf("segment %q does not name a range of seq numbers from 1 up", name)
	}
	return first, last, nil
}

func digits(s string) (int64, bool) {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Segments lists the sealed segments of the ledger at path in seq order. A
// missing segment directory is none. A file in it that is not named like
// a segment is an error: a verifier must not skip what it cannot place.
func Segments(path string) ([]Segment, error) {
	dir := SegmentDir(path)
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list ledger segments: %w", err)
	}
	var names []string
	for _, de := range des {
		if !de.IsDir() {
			names = append(names, de.Name())
		}
	}
	return SegmentsIn(dir, names)
}

// SegmentsIn lists the sealed segments among the file names of the
// segment directory dir (a checkout's, or a branch's through an API), in
// seq order. Temporary files (a leading dot) and tree files are skipped;
// any other name that is not a segment's is an error: a verifier must not
// skip what it cannot place.
func SegmentsIn(dir string, names []string) ([]Segment, error) {
	var segs []Segment
	for _, name := range names {
		if strings.HasPrefix(name, ".") {
			continue // temporary files of an interrupted write
		}
		if IsTreeName(name) {
			continue // a segment's tree file (VerifyTree checks it)
		}
		first, last, err := ParseSegmentName(name)
		if err != nil {
			return nil, fmt.Errorf("ledger segments in %s: %w", dir, err)
		}
		segs = append(segs, Segment{Path: filepath.Join(dir, name), First: first, Last: last})
	}
	slices.SortFunc(segs, func(a, b Segment) int { return int(a.First - b.First) })
	return segs, nil
}

// Files returns the files of the ledger at path in chain order: its sealed
// segments, then the active segment when it exists. It is empty for a
// ledger that does not exist.
func Files(path string) ([]string, error) {
	segs, err := Segments(path)
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(segs)+1)
	for _, s := range segs {
		files = append(files, s.Path)
	}
	if _, err := os.Stat(path); err == nil {
		files = append(files, path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	return files, nil
}

// Open returns a reader over the whole ledger at path: its sealed segments
// in order, then the active segment, as one stream of lines. Every reader
// that needs the whole ledger (Scan, recommendations, show) reads it
// through Open. A ledger with neither an active nor a sealed segment is an
// error that wraps os.ErrNotExist.
func Open(path string) (io.ReadCloser, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("open ledger: %w", &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist})
	}
	return &multiFile{files: files}, nil
}

// multiFile reads files one after another, holding one open at a time.
type multiFile struct {
	files []string
	cur   *os.File
}

func (m *multiFile) Read(p []byte) (int, error) {
	for {
		if m.cur == nil {
			if len(m.files) == 0 {
				return 0, io.EOF
			}
			f, err := inputfile.Open(m.files[0])
			if err != nil {
				return 0, fmt.Errorf("read ledger: %w", err)
			}
			m.cur, m.files = f, m.files[1:]
		}
		n, err := m.cur.Read(p)
		if errors.Is(err, io.EOF) {
			m.cur.Close()
			m.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (m *multiFile) Close() error {
	if m.cur != nil {
		return m.cur.Close()
	}
	return nil
}

// ScanFile calls fn with every entry of the ledger at path, sealed
// segments first, as Scan does for one stream. A missing ledger is empty.
func ScanFile(path string, fn func(Entry) error) error {
	r, err := Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	return Scan(r, fn)
}
