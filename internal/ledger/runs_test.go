package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestActiveHasRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if ok, err := ActiveHasRun(path, "r1"); ok || err != nil {
		t.Fatalf("a missing ledger: %v, %v", ok, err)
	}
	if _, err := Append(path, runDraft("r1", 1), runDraft("r12", 2)); err != nil {
		t.Fatal(err)
	}
	for run, want := range map[string]bool{"r1": true, "r12": true, "r2": false, "r": false, "claude": false} {
		if ok, err := ActiveHasRun(path, run); ok != want || err != nil {
			t.Errorf("ActiveHasRun(%q) = %v, %v; want %v", run, ok, err, want)
		}
	}
}

// TestHasRun checks issue 27 item 13's lookup: a run id in a sealed
// segment is found through the segment's run index (built on first use,
// rebuilt when its segment changed), one in the active segment by reading
// it; a key that only collides is confirmed in the segment.
func TestHasRun(t *testing.T) {
	t.Parallel()
	var drafts []Draft
	for i := range 30 {
		drafts = append(drafts, runDraft(fmt.Sprintf("run-%02d", i), i))
	}
	entries, err := Chain(Head{}, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	path := segmented(t, linesOf(t, entries), 10, 25)
	for run, want := range map[string]bool{"run-00": true, "run-17": true, "run-29": true, "run-30": false, "run-1": false} {
		if ok, err := HasRun(path, run); ok != want || err != nil {
			t.Errorf("HasRun(%q) = %v, %v; want %v", run, ok, err, want)
		}
	}
	idx := filepath.Join(runIndexDir(path), SegmentName(11, 25)[:len(SegmentName(11, 25))-len(".jsonl")]+".idx")
	if _, err := os.Stat(idx); err != nil {
		t.Fatalf("no run index was written: %v", err)
	}
	// An index that no longer names its segment's last entry is rebuilt.
	if err := os.WriteFile(idx, []byte(runIndexMagic+strings.Repeat("0", 64)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := HasRun(path, "run-17"); !ok || err != nil {
		t.Errorf("HasRun with a stale index = %v, %v", ok, err)
	}
	// A key that matches is confirmed in the segment itself.
	if ok, _ := segmentHasRun(filepath.Join(SegmentDir(path), SegmentName(11, 25)), "run-03"); ok {
		t.Error("run-03 is not in the second segment")
	}
}
