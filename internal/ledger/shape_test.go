package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckShapeRefusesADamagedLedger checks issue 27 item 6: a
// byte-flipped, deleted, renamed or extra sealed segment, a damaged tree
// file, or an active segment that no longer follows the last sealed entry
// stops a run before it appends, naming the file. The same ledger
// undamaged passes, and so does an append after it.
func TestCheckShapeRefusesADamagedLedger(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 30)
	seg := func(path string, first, last int64) string {
		return filepath.Join(SegmentDir(path), SegmentName(first, last))
	}
	tree := func(path string, first, last int64) string {
		return Segment{Path: seg(path, first, last)}.TreePath()
	}
	flip := func(file string, at func(b []byte) int) {
		b, _ := os.ReadFile(file)
		b[at(b)] ^= 0x01
		os.WriteFile(file, b, 0o644)
	}
	tests := []struct {
		name   string
		break_ func(p string) string // returns what the error must name
	}{
		{"byte flipped in a segment's last line", func(p string) string {
			flip(seg(p, 11, 25), func(b []byte) int { return len(b) - 20 })
			return seg(p, 11, 25)
		}},
		{"byte flipped in a segment's first line", func(p string) string {
			flip(seg(p, 11, 25), func(b []byte) int { return bytes.Index(b, []byte(`"prev":"`)) + 9 })
			return seg(p, 11, 25)
		}},
		{"first segment deleted", func(p string) string {
			os.Remove(seg(p, 1, 10))
			os.Remove(tree(p, 1, 10))
			return seg(p, 11, 25)
		}},
		{"last segment deleted", func(p string) string {
			os.Remove(seg(p, 11, 25))
			os.Remove(tree(p, 11, 25))
			return p
		}},
		{"segment renamed", func(p string) string {
			os.Rename(seg(p, 11, 25), seg(p, 11, 24))
			return seg(p, 11, 24)
		}},
		{"extra segment", func(p string) string {
			os.WriteFile(seg(p, 26, 30), nil, 0o644)
			return seg(p, 26, 30)
		}},
		{"segment replaced by another chain", func(p string) string {
			var drafts []Draft
			for i := range 25 {
				drafts = append(drafts, runDraft("other", i))
			}
			other, err := Chain(Head{}, drafts...)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(seg(p, 11, 25), linesOf(t, other[10:]), 0o644)
			return seg(p, 11, 25)
		}},
		{"tree file changed", func(p string) string {
			flip(tree(p, 11, 25), func(b []byte) int { return bytes.Index(b, []byte("head ")) + 6 })
			return tree(p, 11, 25)
		}},
		{"tree file without its segment", func(p string) string {
			os.Rename(tree(p, 11, 25), tree(p, 11, 26))
			return tree(p, 11, 26)
		}},
		{"active segment's first prev", func(p string) string {
			b, _ := os.ReadFile(p)
			lines := splitLines(b)
			os.WriteFile(p, bytes.Join(lines[1:], nil), 0o644)
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := segmented(t, data, 10, 25)
			if _, err := BuildTrees(path); err != nil {
				t.Fatal(err)
			}
			if err := CheckShape(path); err != nil {
				t.Fatalf("CheckShape of the ledger before the damage: %v", err)
			}
			file := tt.break_(path)
			err := CheckShape(path)
			if err == nil {
				t.Fatal("CheckShape accepted the damaged ledger")
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("error %q does not name %s", err, file)
			}
			if _, verr := VerifyTree(path); verr == nil {
				t.Errorf("VerifyFile accepts what CheckShape refused: %v", err)
			}
		})
	}
}

// TestCheckShapeAcceptsWhatAppendLeaves: every shape a sound ledger takes
// passes — none, only an active segment, sealed segments with or without
// tree files and with an empty or missing active segment.
func TestCheckShapeAcceptsWhatAppendLeaves(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 30)
	if err := CheckShape(filepath.Join(t.TempDir(), "ledger.jsonl")); err != nil {
		t.Errorf("no ledger: %v", err)
	}
	for _, cuts := range [][]int{nil, {10}, {10, 25}, {10, 30}} {
		path := segmented(t, data, cuts...)
		if err := CheckShape(path); err != nil {
			t.Errorf("segments cut at %v, no tree files: %v", cuts, err)
		}
		if _, err := BuildTrees(path); err != nil {
			t.Fatal(err)
		}
		if err := CheckShape(path); err != nil {
			t.Errorf("segments cut at %v with tree files: %v", cuts, err)
		}
		if len(cuts) > 0 && cuts[len(cuts)-1] == 30 {
			os.Remove(path)
			if err := CheckShape(path); err != nil {
				t.Errorf("sealed segments without an active one: %v", err)
			}
		}
	}
}
