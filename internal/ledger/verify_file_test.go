package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyFileReportsTheFirstFault: VerifyFile reads a file while the
// checkers are still at the end of the one before, yet of several faults
// in several files it reports the first in the ledger's order, with the
// summary of the ledger before it, whichever stage finds it: a bad line,
// a segment that ends short of its name, a missing segment, a bad tree
// file. The segments span several batches, so that the files overlap in
// the pipeline.
func TestVerifyFileReportsTheFirstFault(t *testing.T) {
	t.Parallel()
	const per = 600 // entries a segment: more than one batch
	data, _ := synthetic(t, 5*per)
	seg := func(path string, i int) string {
		return filepath.Join(SegmentDir(path), SegmentName(int64(i*per+1), int64((i+1)*per)))
	}
	tamper := func(t *testing.T, file string, line int) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := splitLines(b)
		lines[line] = bytes.Replace(lines[line], []byte(`"agent":"codex"`), []byte(`"agent":"cxdex"`), 1)
		if err := os.WriteFile(file, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shorten := func(t *testing.T, file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := splitLines(b)
		if err := os.WriteFile(file, bytes.Join(lines[:len(lines)-1], nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		break_  func(t *testing.T, path string) (file string, line int64)
		problem Problem
		trees   bool
	}{
		{"bad line, then a missing segment and a bad active line", func(t *testing.T, p string) (string, int64) {
			tamper(t, seg(p, 1), 100)
			os.Remove(seg(p, 2))
			tamper(t, p, 5)
			return seg(p, 1), per + 101
		}, ProblemHash, false},
		{"short segment, then a missing one", func(t *testing.T, p string) (string, int64) {
			shorten(t, seg(p, 1))
			os.Remove(seg(p, 2))
			tamper(t, p, 5)
			return seg(p, 1), 2*per - 1
		}, ProblemSegment, false},
		{"bad line in the last segment, then in the active one", func(t *testing.T, p string) (string, int64) {
			tamper(t, seg(p, 3), per-1)
			tamper(t, p, 0)
			return seg(p, 3), 4 * per
		}, ProblemHash, false},
		{"bad tree file, then a missing segment", func(t *testing.T, p string) (string, int64) {
			tree := Segment{Path: seg(p, 1)}.TreePath()
			b, err := os.ReadFile(tree)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tree, bytes.Replace(b, []byte("a"), []byte("b"), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(seg(p, 2)) // and its tree file is left without it
			return tree, 2 * per
		}, ProblemTree, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := segmented(t, data, per, 2*per, 3*per, 4*per)
			if tt.trees {
				writeTrees(t, path)
			}
			file, line := tt.break_(t, path)
			verify := VerifyFile
			if tt.trees {
				verify = func(path string) (Summary, error) {
					s, err := VerifyTree(path)
					return s.Summary, err
				}
			}
			sum, err := verify(path)
			if err == nil {
				t.Fatal("the broken ledger verified")
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("error %q does not name %s", err, file)
			}
			verr := asVerifyError(t, err)
			if verr.Problem != tt.problem || verr.Line != line {
				t.Errorf("problem %s at line %d, want %s at line %d (%v)", verr.Problem, verr.Line, tt.problem, line, err)
			}
			// The summary is of the segments before the faulty file.
			if want := (line - 1) / per * per; sum.Entries != want || sum.Head.Seq != want {
				t.Errorf("summary %+v, want the ledger's first %d entries", sum, want)
			}
		})
	}
}
