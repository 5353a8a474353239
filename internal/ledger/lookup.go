package ledger

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Found is what Lookup found in a ledger.
type Found struct {
	// Entries is how many entries the ledger holds.
	Entries int64
	// BySeq is the hash of the entry at each seq asked for that the
	// ledger holds.
	BySeq map[int64]string
	// ByHash is the seq of the entry with each hash asked for that the
	// ledger holds.
	ByHash map[string]int64
}

// Lookup finds entries of the ledger at path by seq and by hash, for
// checking heads published elsewhere (a witness's memory, optr's issue
// comments) against it. It reads each line's seq and hash without
// verifying the chain (VerifyFile does), and, when no hash is asked for,
// only the segments that hold the seqs asked for.
func Lookup(path string, seqs []int64, hashes []string) (Found, error) {
	head, err := TailHead(path)
	if err != nil {
		return Found{}, err
	}
	f := Found{Entries: head.Seq, BySeq: map[int64]string{}, ByHash: map[string]int64{}}
	wantSeq := map[int64]bool{}
	for _, s := range seqs {
		wantSeq[s] = true
	}
	wantHash := map[string]bool{}
	for _, h := range hashes {
		wantHash[h] = true
	}
	segs, err := Segments(path)
	if err != nil {
		return f, err
	}
	type part struct {
		path  string
		first int64
	}
	var parts []part
	for _, s := range segs {
		if len(wantHash) > 0 || slices.ContainsFunc(seqs, func(n int64) bool { return n >= s.First && n <= s.Last }) {
			parts = append(parts, part{s.Path, s.First})
		}
	}
	sealed := int64(0)
	if len(segs) > 0 {
		sealed = segs[len(segs)-1].Last
	}
	if len(wantHash) > 0 || slices.ContainsFunc(seqs, func(n int64) bool { return n > sealed }) {
		parts = append(parts, part{path, sealed + 1})
	}
	for _, p := range parts {
		if err := lookupFile(p.path, p.first, wantSeq, wantHash, &f); err != nil {
			return f, err
		}
	}
	return f, nil
}

// lookupFile reads one ledger file whose first line is entry first.
func lookupFile(path string, first int64, wantSeq map[int64]bool, wantHash map[string]bool, f *Found) error {
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read ledger: %w", err)
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 1<<20)
	for n := first; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s line %d: %w", path, n-first+1, err)
		}
		info, lerr := parseLine(line)
		if lerr != nil {
			return fmt.Errorf("ledger %s: %w", path, lerr.at(n))
		}
		if info.seq != n {
			return fmt.Errorf("ledger %s: %w", path, newLineError(ProblemSeq, "its seq is %d, it is entry %d of the ledger", info.seq, n).at(n))
		}
		if wantSeq[n] {
			f.BySeq[n] = string(info.hash)
		}
		if wantHash[string(info.hash)] {
			f.ByHash[string(info.hash)] = n
		}
	}
}
