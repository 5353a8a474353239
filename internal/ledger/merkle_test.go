package ledger

import (
	"fmt"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// records are distinct test records.
func records(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"seq":%d}`, i+1))
	}
	return out
}

// storedHashes builds tlog's own stored hashes for recs.
func storedHashes(t *testing.T, recs [][]byte) tlog.HashReaderFunc {
	t.Helper()
	var stored []tlog.Hash
	for i, r := range recs {
		hs, err := tlog.StoredHashes(int64(i), r, tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
			out := make([]tlog.Hash, len(idx))
			for j, x := range idx {
				out[j] = stored[x]
			}
			return out, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
	}
	return func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for j, x := range idx {
			out[j] = stored[x]
		}
		return out, nil
	}
}

// TestTreeAgreesWithTlog: the streaming root equals what
// golang.org/x/mod/sumdb/tlog computes, for every size up to 70.
func TestTreeAgreesWithTlog(t *testing.T) {
	t.Parallel()
	recs := records(70)
	r := storedHashes(t, recs)
	for size := int64(0); size <= int64(len(recs)); size++ {
		b := newTreeBuilder()
		for _, rec := range recs[:size] {
			b.addRecord(rec)
		}
		want, err := tlog.TreeHash(size, r)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.root(); got != want {
			t.Fatalf("size %d: root %v, tlog says %v", size, got, want)
		}
	}
}
