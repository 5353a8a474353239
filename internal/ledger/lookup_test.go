package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLookup finds entries by seq and by hash across sealed segments and
// the active one, and leaves out what the ledger does not hold.
func TestLookup(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 30)
	path := segmented(t, data, 10, 20)
	var hashes []string
	ScanFile(path, func(e Entry) error { hashes = append(hashes, e.Hash); return nil })
	f, err := Lookup(path, []int64{1, 10, 11, 25, 31}, []string{hashes[4], hashes[29], "feed"})
	if err != nil {
		t.Fatal(err)
	}
	want := Found{
		Entries: 30,
		BySeq:   map[int64]string{1: hashes[0], 10: hashes[9], 11: hashes[10], 25: hashes[24]},
		ByHash:  map[string]int64{hashes[4]: 5, hashes[29]: 30},
	}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	// By seq alone it reads only the segments that hold them.
	if f, err := Lookup(path, []int64{15}, nil); err != nil || f.BySeq[15] != hashes[14] {
		t.Errorf("Lookup(15) = %+v, %v", f, err)
	}
}
