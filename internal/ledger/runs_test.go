package ledger

import (
	"path/filepath"
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
