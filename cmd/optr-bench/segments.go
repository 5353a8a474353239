package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/ledger"
)

// segmentedLedger writes an n-entry synthetic ledger as the Action keeps
// it: sealed 8 MiB segments in ledger.d/, each with its tree file, and the
// rest in ledger.jsonl. It returns the active segment's path.
func segmentedLedger(dir string, n int) (string, error) {
	return segmentedLedgerWith(dir, n, ledger.SyntheticOptions{})
}

// segmentedLedgerWith is segmentedLedger with entries shaped by o.
func segmentedLedgerWith(dir string, n int, o ledger.SyntheticOptions) (string, error) {
	path := filepath.Join(dir, "ledger.jsonl")
	if err := os.MkdirAll(ledger.SegmentDir(path), 0o755); err != nil {
		return "", err
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<20)
		_, err := ledger.WriteSyntheticWith(bw, n, o)
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	br := bufio.NewReaderSize(pr, 1<<20)
	var cur []byte
	var first, seq int64 = 1, 0
	var tree []byte // the last sealed segment's tree file
	flush := func(name string) error {
		if err := os.WriteFile(name, cur, 0o644); err != nil || name == path {
			return err
		}
		var err error
		if tree, err = ledger.SegmentTree(tree, cur); err != nil {
			return err
		}
		return os.WriteFile(ledger.Segment{Path: name}.TreePath(), tree, 0o644)
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if len(cur)+len(line) > ledger.SegmentLimit {
				if err := flush(filepath.Join(ledger.SegmentDir(path), ledger.SegmentName(first, seq))); err != nil {
					return "", err
				}
				cur, first = cur[:0], seq+1
			}
			cur = append(cur, line...)
			seq++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return path, flush(path)
}

// ledgerFiles lists a ledger's files, sealed segments first.
func ledgerFiles(path string) ([]string, int64, error) {
	files, err := ledger.Files(path)
	if err != nil {
		return nil, 0, err
	}
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, 0, err
		}
		size += st.Size()
	}
	return files, size, nil
}

// activeWith re-cuts the end of a segmented ledger so that its active
// segment holds about fill bytes (whole lines): the last sealed segment
// and the active one are joined and split again, the sealed part into
// segments of at most ledger.SegmentLimit, so that the chain stays intact.
func activeWith(path string, fill int) error {
	segs, err := ledger.Segments(path)
	if err != nil || len(segs) == 0 {
		return fmt.Errorf("no sealed segment to take entries from: %v", err)
	}
	last := segs[len(segs)-1]
	sealed, err := os.ReadFile(last.Path)
	if err != nil {
		return err
	}
	active, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	all := append(sealed, active...)
	cut := max(0, len(all)-fill)
	if i := bytes.IndexByte(all[cut:], '\n'); cut > 0 && i >= 0 {
		cut += i + 1
	}
	if err := os.Remove(last.Path); err != nil {
		return err
	}
	if err := os.Remove(last.TreePath()); err != nil {
		return err
	}
	rest, first := all[:cut], last.First
	for len(rest) > 0 {
		n := min(len(rest), ledger.SegmentLimit)
		if n < len(rest) {
			n = bytes.LastIndexByte(rest[:n], '\n') + 1
		}
		h, err := ledger.HeadOf(rest[:n])
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(last.Path), ledger.SegmentName(first, h.Seq)), rest[:n], 0o644); err != nil {
			return err
		}
		rest, first = rest[n:], h.Seq+1
	}
	// The tree files the sealed segments lack, as sealing writes them.
	if _, err := ledger.BuildTrees(path); err != nil {
		return err
	}
	return os.WriteFile(path, all[cut:], 0o644)
}
