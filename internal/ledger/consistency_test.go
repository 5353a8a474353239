package ledger

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"
)

// merkleRoots computes the RFC 6962 root of every prefix of recs with
// transparency-dev/merkle's compact ranges: roots[n] is the root of the
// first n records, computed without optr's code.
func merkleRoots(t *testing.T, recs [][]byte) [][]byte {
	t.Helper()
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	roots := [][]byte{rfc6962.DefaultHasher.EmptyRoot()}
	for _, rec := range recs {
		if err := r.Append(rfc6962.DefaultHasher.HashLeaf(rec), nil); err != nil {
			t.Fatal(err)
		}
		root, err := r.GetRootHash(nil)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
	}
	return roots
}

func asBytes(p tlog.TreeProof) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = p[i][:]
	}
	return out
}

// TestConsistencyProofsVerifyWithMerkle: for ledgers of every size up to
// 130 cut into random segments (the active one sometimes empty), the
// consistency proof from every smaller size, made from the tree files and
// also in one pass over the lines (no tree files), verifies with
// transparency-dev/merkle's proof.VerifyConsistency against roots it
// computed itself; a proof with a flipped bit, one hash short, or from
// the wrong size does not.
func TestConsistencyProofsVerifyWithMerkle(t *testing.T) {
	t.Parallel()
	n := 130
	if raceEnabled {
		n = 60
	}
	all, _ := synthetic(t, n)
	lines := splitLines(all)
	roots := merkleRoots(t, ledgerRecords(all))
	rng := rand.New(rand.NewPCG(25, 1))
	for size := 1; size <= len(lines); size++ {
		data := bytes.Join(lines[:size], nil)
		cuts := randomCuts(rng, size, 1+rng.IntN(40))
		path := segmented(t, data, cuts...)
		writeTrees(t, path)
		streamed := segmented(t, data, cuts...) // no tree files
		name := fmt.Sprintf("size %d cuts %v", size, cuts)
		froms := []int64{0, 1, int64(size), int64(size) - 1, rng.Int64N(int64(size) + 1)}
		for _, c := range cuts {
			froms = append(froms, int64(c)-1, int64(c), int64(c)+1)
		}
		if size <= 40 {
			froms = nil
			for m := range size + 1 {
				froms = append(froms, int64(m))
			}
		}
		for _, from := range froms {
			if from < 0 || from > int64(size) {
				continue
			}
			p, head, err := ProveConsistency(path, LocalOrigin, from)
			if err != nil {
				t.Fatalf("%s: ProveConsistency(%d): %v", name, from, err)
			}
			if head.Size != int64(size) || !bytes.Equal(head.Root[:], roots[size]) {
				t.Fatalf("%s: the proof leads to %d %x, the ledger is %d %x", name, head.Size, head.Root, size, roots[size])
			}
			if from == 0 {
				// merkle refuses any proof from the empty tree; C2SP wants
				// it empty.
				if len(p) != 0 {
					t.Fatalf("%s: the proof from 0 has %d hashes, want none", name, len(p))
				}
			} else if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), uint64(size), asBytes(p), roots[from], roots[size]); err != nil {
				t.Fatalf("%s: the proof from %d does not verify with transparency-dev/merkle: %v", name, from, err)
			}
			ps, _, err := ProveConsistency(streamed, LocalOrigin, from)
			if err != nil {
				t.Fatalf("%s: ProveConsistency(%d) without tree files: %v", name, from, err)
			}
			if !slices.Equal(ps, p) {
				t.Fatalf("%s from %d: the proof without tree files differs:\n%v\n%v", name, from, ps, p)
			}
			if len(p) == 0 {
				continue
			}
			bad := slices.Clone(p)
			bad[rng.IntN(len(bad))][rng.IntN(sha256.Size)] ^= 1 << rng.IntN(8)
			if proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), uint64(size), asBytes(bad), roots[from], roots[size]) == nil {
				t.Fatalf("%s from %d: a proof with a flipped bit verifies", name, from)
			}
			if proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), uint64(size), asBytes(p[:len(p)-1]), roots[from], roots[size]) == nil {
				t.Fatalf("%s from %d: a proof one hash short verifies", name, from)
			}
		}
	}
}

// TestConsistencyOfTheActiveSegment: what the Action holds after a
// commit-back (the last tree file and the active segment) proves
// consistency from any size from the last sealed entry on, as the files
// do, and refuses an older size, saying why.
func TestConsistencyOfTheActiveSegment(t *testing.T) {
	t.Parallel()
	all, _ := synthetic(t, 50)
	roots := merkleRoots(t, ledgerRecords(all))
	path := segmented(t, all, 12, 31)
	writeTrees(t, path)
	segs, err := Segments(path)
	if err != nil {
		t.Fatal(err)
	}
	lastTree, err := os.ReadFile(segs[len(segs)-1].TreePath())
	if err != nil {
		t.Fatal(err)
	}
	active, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for from := int64(31); from <= 50; from++ {
		p, err := ConsistencyOf(lastTree, active, from)
		if err != nil {
			t.Fatalf("ConsistencyOf(%d): %v", from, err)
		}
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), 50, asBytes(p), roots[from], roots[50]); err != nil {
			t.Fatalf("ConsistencyOf(%d) does not verify: %v", from, err)
		}
	}
	if _, err := ConsistencyOf(lastTree, active, 30); err == nil || !strings.Contains(err.Error(), "sealed segments") {
		t.Fatalf("ConsistencyOf(30) = %v, want a refusal naming the sealed segments", err)
	}
	// A ledger that never sealed needs no tree file.
	small := bytes.Join(splitLines(all)[:9], nil)
	p, err := ConsistencyOf(nil, small, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, 4, 9, asBytes(p), roots[4], roots[9]); err != nil {
		t.Fatalf("ConsistencyOf(nil, 9 entries, 4) does not verify: %v", err)
	}
}

// TestCheckConsistency: CheckConsistency accepts exactly the proofs that
// transparency-dev/merkle accepts, and refuses swapped, forked and
// mislabelled checkpoints by name.
func TestCheckConsistency(t *testing.T) {
	t.Parallel()
	all, _ := synthetic(t, 20)
	roots := merkleRoots(t, ledgerRecords(all))
	path := segmented(t, all, 7)
	writeTrees(t, path)
	head := func(n int64) TreeHead {
		var h TreeHead
		h.Origin, h.Size = LocalOrigin, n
		copy(h.Root[:], roots[n])
		return h
	}
	p, _, err := ProveConsistency(path, LocalOrigin, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckConsistency(p, head(5), head(20)); err != nil {
		t.Fatalf("a good proof: %v", err)
	}
	round, err := ParseConsistency(append(FormatConsistency(p), '\n'))
	if err != nil || !slices.Equal(round, p) {
		t.Fatalf("ParseConsistency(FormatConsistency(p)+blank line) = %v, %v", round, err)
	}
	other := head(5)
	other.Origin = "optr/else/where"
	forked := head(20)
	forked.Root[0] ^= 1
	for _, tc := range []struct {
		name       string
		p          tlog.TreeProof
		prev, next TreeHead
		want       string
	}{
		{"swapped", p, head(20), head(5), "larger"},
		{"other log", p, other, head(20), "two logs"},
		{"forked head", p, head(5), forked, "does not show"},
		{"same size forked", nil, head(20), forked, "forked"},
		{"from zero with hashes", p, head(0), head(20), "must be empty"},
		{"wrong old size", p, head(6), head(20), "does not show"},
	} {
		if err := CheckConsistency(tc.p, tc.prev, tc.next); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckConsistency = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range []string{"not base64\n", "AAAA\n", strings.Repeat(consistencyLine(p[0]), 64)} {
		if _, err := ParseConsistency([]byte(bad)); err == nil {
			t.Errorf("ParseConsistency(%.40q) accepted it", bad)
		}
	}
}

// consistencyLine is one line of a proof.
func consistencyLine(h tlog.Hash) string {
	return string(FormatConsistency(tlog.TreeProof{h}))
}
