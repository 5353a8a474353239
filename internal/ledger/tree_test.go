package ledger

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/sumdb/tlog"
)

// writeTrees writes the tree file of every sealed segment of the ledger at
// path through SegmentTree, each from the one before, as sealing does.
func writeTrees(t testing.TB, path string) {
	t.Helper()
	segs, err := Segments(path)
	if err != nil {
		t.Fatal(err)
	}
	var prev []byte
	for _, s := range segs {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := SegmentTree(prev, data)
		if err != nil {
			t.Fatalf("SegmentTree(%s): %v", filepath.Base(s.Path), err)
		}
		if err := os.WriteFile(s.TreePath(), tree, 0o644); err != nil {
			t.Fatal(err)
		}
		prev = tree
	}
}

// records of a ledger's lines, without their newlines, as tlog sees them.
func ledgerRecords(data []byte) [][]byte {
	var recs [][]byte
	for _, l := range splitLines(data) {
		recs = append(recs, bytes.TrimSuffix(l, []byte("\n")))
	}
	return recs
}

// randomCuts cuts n entries into sealed segments of 1 to max entries,
// leaving 0 to max entries active.
func randomCuts(rng *rand.Rand, n, max int) []int {
	var cuts []int
	at := 0
	for {
		at += 1 + rng.IntN(max)
		if at > n {
			return cuts
		}
		cuts = append(cuts, at)
	}
}

// TestTreeFilesAgreeWithTlog: for ledgers of every size up to 130 cut into
// random segments (the active one sometimes empty), the checkpoint and
// the inclusion proofs (of the entries around every boundary, and others) made from the tree files and the active segment
// are exactly what golang.org/x/mod/sumdb/tlog computes from all records;
// and BuildTrees writes the same tree files that sealing does.
func TestTreeFilesAgreeWithTlog(t *testing.T) {
	t.Parallel()
	n := 130
	if raceEnabled {
		n = 70
	}
	all, _ := synthetic(t, n)
	lines := splitLines(all)
	recs := ledgerRecords(all)
	ref := storedHashes(t, recs)
	rng := rand.New(rand.NewPCG(16, 4))
	for size := 1; size <= len(lines); size++ {
		data := bytes.Join(lines[:size], nil)
		cuts := randomCuts(rng, size, 1+rng.IntN(40))
		if len(cuts) == 0 {
			continue
		}
		name := fmt.Sprintf("size %d cuts %v", size, cuts)
		path := segmented(t, data, cuts...)
		writeTrees(t, path)
		root, err := tlog.TreeHash(int64(size), ref)
		if err != nil {
			t.Fatal(err)
		}
		v, err := openTreeView(path, -1, false)
		if err != nil {
			t.Fatalf("%s: openTreeView: %v", name, err)
		}
		if v.size != int64(size) || v.root != root {
			t.Fatalf("%s: tree view size %d root %v, tlog says %d %v", name, v.size, v.root, size, root)
		}
		// Every entry next to a segment boundary, the first and last, and
		// a few others.
		seqs := []int64{1, int64(size), 1 + rng.Int64N(int64(size)), 1 + rng.Int64N(int64(size))}
		for _, c := range cuts {
			seqs = append(seqs, int64(c), int64(c)+1)
		}
		for _, seq := range seqs {
			if seq > int64(size) {
				continue
			}
			p, cp, err := proveFromTrees(path, LocalOrigin, seq)
			if err != nil {
				t.Fatalf("%s seq %d: %v", name, seq, err)
			}
			want, err := tlog.ProveRecord(int64(size), seq-1, ref)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(want, p.Hashes) {
				t.Fatalf("%s seq %d: proof (-tlog +got):\n%s", name, seq, cmp.Diff(want, p.Hashes))
			}
			if p.Entry != string(recs[seq-1]) || cp.Root != root || cp.Size != int64(size) {
				t.Fatalf("%s seq %d: entry %q, checkpoint %+v", name, seq, p.Entry, cp)
			}
		}
		// BuildTrees on the same segments without tree files writes
		// byte-identical ones.
		segs, _ := Segments(path)
		var sealed [][]byte
		for _, s := range segs {
			b, _ := os.ReadFile(s.TreePath())
			sealed = append(sealed, b)
			os.Remove(s.TreePath())
		}
		if _, err := BuildTrees(path); err != nil {
			t.Fatalf("%s: BuildTrees: %v", name, err)
		}
		for i, s := range segs {
			b, err := os.ReadFile(s.TreePath())
			if err != nil || !bytes.Equal(b, sealed[i]) {
				t.Fatalf("%s: BuildTrees wrote %s as\n%s\nsealing as\n%s (%v)", name, filepath.Base(s.TreePath()), b, sealed[i], err)
			}
		}
	}
}

// TestSealWritesTheTreeFile: sealing through AppendFile writes the
// segment's tree file from the one before it, which verify accepts and a
// checkpoint then uses; without the one before it writes none and the
// append still succeeds.
func TestSealWritesTheTreeFile(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 9000)
	lines := splitLines(data)
	// Entries 21 on, as many as stay under the limit, are the active segment.
	k, size := 20, 0
	for size+len(lines[k]) <= SegmentLimit-4<<10 {
		size += len(lines[k])
		k++
	}
	for _, prevTree := range []bool{true, false} {
		path := segmented(t, bytes.Join(lines[:k], nil), 10, 20)
		writeTrees(t, path)
		segs, _ := Segments(path)
		if !prevTree {
			os.Remove(segs[1].TreePath())
		}
		var sealed *Segment
		for i := 0; sealed == nil && i < 20; i++ {
			res, err := AppendFile(path, Draft{Kind: "note", Run: fmt.Sprintf("r%d", i), Time: testEpoch, Fields: map[string]any{"blob": strings.Repeat("x", 1<<10)}})
			if err != nil {
				t.Fatal(err)
			}
			sealed = res.Sealed
		}
		if sealed == nil {
			t.Fatal("no seal")
		}
		_, err := os.Stat(sealed.TreePath())
		if prevTree != (err == nil) {
			t.Fatalf("previous tree file %v: the seal's tree file: %v", prevTree, err)
		}
		ts, err := VerifyTree(path)
		if err != nil {
			t.Fatal(err)
		}
		if !prevTree {
			continue
		}
		v, err := openTreeView(path, -1, false)
		if err != nil {
			t.Fatalf("the checkpoint cannot use the tree files: %v", err)
		}
		if v.size != ts.Entries || v.root != ts.Root {
			t.Errorf("from the tree files: %d entries, root %v; VerifyTree: %d, %v", v.size, v.root, ts.Entries, ts.Root)
		}
	}
}

// headText is the unsigned head checkpoint of the ledger at path.
func headText(t *testing.T, path string) (string, error) {
	t.Helper()
	b, err := HeadCheckpoint(path, LocalOrigin, "")
	return string(b), err
}

// TestTreeFileFaults: a tree file that is missing, changed, stale (its
// segment rewritten) or without its segment never makes a wrong
// checkpoint or proof: the checkpoint falls back to hashing the ledger
// (writing a missing file again) or fails naming the file, verify names
// it, and a proof falls back to hashing the ledger.
func TestTreeFileFaults(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 60)
	lines := splitLines(data)
	want := TreeHead{Origin: LocalOrigin, Size: 60, Root: tlogRoot(t, data)}.Text()
	setup := func(t *testing.T) (string, []Segment) {
		path := segmented(t, data, 17, 33, 50)
		writeTrees(t, path)
		segs, err := Segments(path)
		if err != nil {
			t.Fatal(err)
		}
		return path, segs
	}
	flip := func(t *testing.T, file string, edit func([]byte) []byte) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, edit(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// nodeFlip changes one character of the first node hash.
	nodeFlip := func(b []byte) []byte {
		ls := strings.Split(string(b), "\n")
		f := strings.Fields(ls[4])
		c := "A"
		if f[2][0] == 'A' {
			c = "B"
		}
		ls[4] = f[0] + " " + f[1] + " " + c + f[2][1:]
		return []byte(strings.Join(ls, "\n"))
	}
	// resum makes the sum line fit again: a deliberate forgery.
	resum := func(b []byte) []byte {
		i := bytes.LastIndex(b, []byte("\nsum "))
		return fmt.Appendf(b[:i+1:i+1], "sum %x\n", sha256.Sum256(b[:i+1]))
	}

	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		path, segs := setup(t)
		for _, s := range segs {
			os.Remove(s.TreePath())
		}
		if got, err := headText(t, path); err != nil || got != want {
			t.Fatalf("HeadCheckpoint = %q, %v; want %q", got, err, want)
		}
		for _, s := range segs {
			if _, err := os.Stat(s.TreePath()); err != nil {
				t.Errorf("the fallback did not write %s again: %v", filepath.Base(s.TreePath()), err)
			}
		}
		if _, err := openTreeView(path, -1, false); err != nil {
			t.Errorf("after the fallback the tree files are still unusable: %v", err)
		}
	})
	t.Run("missing-middle-proof", func(t *testing.T) {
		t.Parallel()
		path, segs := setup(t)
		os.Remove(segs[1].TreePath())
		checkProofs(t, path, data)
	})

	faults := []struct {
		name   string
		break_ func(t *testing.T, path string, segs []Segment) string // the file verify must name
	}{
		{"changed-hash", func(t *testing.T, path string, segs []Segment) string {
			flip(t, segs[2].TreePath(), nodeFlip)
			return segs[2].TreePath()
		}},
		{"forged-hash", func(t *testing.T, path string, segs []Segment) string {
			flip(t, segs[2].TreePath(), func(b []byte) []byte { return resum(nodeFlip(b)) })
			return segs[2].TreePath()
		}},
		{"cut-short", func(t *testing.T, path string, segs []Segment) string {
			flip(t, segs[1].TreePath(), func(b []byte) []byte { return b[:len(b)/2] })
			return segs[1].TreePath()
		}},
		{"of-another-segment", func(t *testing.T, path string, segs []Segment) string {
			other, _ := os.ReadFile(segs[1].TreePath())
			os.WriteFile(segs[2].TreePath(), other, 0o644)
			return segs[2].TreePath()
		}},
		{"stale", func(t *testing.T, path string, segs []Segment) string {
			// Entries 34 to 60 rewritten and rechained (a valid ledger
			// again), the old tree file of segment 34-50 left behind.
			head, err := HeadOf(bytes.Join(lines[:33], nil))
			if err != nil {
				t.Fatal(err)
			}
			var rest []Draft
			for i := range 27 {
				rest = append(rest, runDraft("rewritten", i))
			}
			entries, err := Chain(head, rest...)
			if err != nil {
				t.Fatal(err)
			}
			re := splitLines(linesOf(t, entries))
			os.WriteFile(segs[2].Path, bytes.Join(re[:17], nil), 0o644)
			os.WriteFile(path, bytes.Join(re[17:], nil), 0o644)
			return segs[2].TreePath()
		}},
		{"orphan", func(t *testing.T, path string, segs []Segment) string {
			os.Remove(segs[2].Path)
			os.Remove(path)
			return segs[2].TreePath()
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			path, segs := setup(t)
			named := f.break_(t, path, segs)
			_, err := VerifyTree(path)
			ve := asVerifyError(t, err)
			if ve.Problem != ProblemTree {
				t.Errorf("VerifyTree problem %s, want %s: %v", ve.Problem, ProblemTree, err)
			}
			if !strings.Contains(err.Error(), filepath.Base(named)) {
				t.Errorf("VerifyTree does not name %s: %v", filepath.Base(named), err)
			}
			got, err := headText(t, path)
			switch {
			case f.name == "forged-hash":
				// A forgery that keeps the file's own checks is beyond a
				// checkpoint that reads only the last segment's tree file;
				// verify (above) names it, and the checkpoint it makes
				// cannot pass verify --checkpoint (below).
			case err == nil && got != mustHead(t, path):
				t.Errorf("HeadCheckpoint made a wrong checkpoint:\n%s", got)
			case err != nil && !strings.Contains(err.Error(), filepath.Base(named)):
				t.Errorf("HeadCheckpoint failed without naming %s: %v", filepath.Base(named), err)
			}
			if f.name == "forged-hash" {
				cp, _ := ParseCheckpoint([]byte(got))
				ts, err := verifyTreeIgnoringTrees(path, cp.Size)
				if err != nil {
					t.Fatal(err)
				}
				if got != mustHead(t, path) && ts.Holds(cp) == nil {
					t.Error("a checkpoint made from a forged tree file holds for the ledger")
				}
			}
			if f.name != "forged-hash" {
				checkProofs(t, path, nil)
			}
		})
	}
}

// mustHead is the head checkpoint of the ledger at path computed from all
// its lines, ignoring tree files.
func mustHead(t *testing.T, path string) string {
	t.Helper()
	ts, err := verifyTreeIgnoringTrees(path)
	if err != nil {
		t.Fatal(err)
	}
	return TreeHead{Origin: LocalOrigin, Size: ts.Entries, Root: ts.Root}.Text()
}

// verifyTreeIgnoringTrees is VerifyTree on a copy of the ledger without
// its tree files.
func verifyTreeIgnoringTrees(path string, at ...int64) (TreeSummary, error) {
	dir, err := os.MkdirTemp("", "ledger-copy")
	if err != nil {
		return TreeSummary{}, err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, "ledger.jsonl")
	files, err := Files(path)
	if err != nil {
		return TreeSummary{}, err
	}
	os.MkdirAll(SegmentDir(cp), 0o755)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return TreeSummary{}, err
		}
		to := filepath.Join(SegmentDir(cp), filepath.Base(f))
		if f == path {
			to = cp
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return TreeSummary{}, err
		}
	}
	return VerifyTree(cp, at...)
}

// checkProofs proves every entry of the ledger at path with Prove and
// checks each proof, and its checkpoint against all the ledger's lines
// (data, or the ledger's files when nil).
func checkProofs(t *testing.T, path string, data []byte) {
	t.Helper()
	if data == nil {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(r)
		r.Close()
		data = buf.Bytes()
	}
	recs := ledgerRecords(data)
	root := tlogRoot(t, data)
	for seq := int64(1); seq <= int64(len(recs)); seq++ {
		p, cp, err := Prove(path, LocalOrigin, seq)
		if err != nil {
			t.Fatalf("Prove(%d): %v", seq, err)
		}
		if cp.Root != root || p.Entry != string(recs[seq-1]) {
			t.Fatalf("Prove(%d): a proof into root %v of entry %q; the ledger's root is %v", seq, cp.Root, p.Entry, root)
		}
		if _, err := p.Check(""); err != nil {
			t.Fatalf("Prove(%d): %v", seq, err)
		}
	}
}

func TestIsTreeName(t *testing.T) {
	t.Parallel()
	s := Segment{Path: filepath.Join("x", "ledger.d", SegmentName(1, 9))}
	if got := filepath.Base(s.TreePath()); got != "000000000001-000000000009.merkle" || !IsTreeName(got) {
		t.Errorf("TreePath = %q", got)
	}
	for _, bad := range []string{"000000000001-000000000009.jsonl", "1-9.merkle", "x.merkle"} {
		if IsTreeName(bad) {
			t.Errorf("IsTreeName(%q)", bad)
		}
	}
}

// spanningNodes against its definition, counted out node by node: for
// each level, the node holding records first-2 and first-1 (0-based),
// when it ends by last; none for the first segment.
func TestSpanningNodes(t *testing.T) {
	t.Parallel()
	for first := int64(1); first <= 40; first++ {
		for last := first; last <= 70; last++ {
			var want []node
			for level := 1; level < 8; level++ {
				for index := int64(0); index<<level < last; index++ {
					n := node{level: level, index: index}
					if first >= 2 && n.lo() <= first-2 && n.hi() > first-1 && n.hi() <= last {
						want = append(want, n)
					}
				}
			}
			if got := spanningNodes(first, last); !slices.Equal(got, want) {
				t.Fatalf("spanningNodes(%d, %d) = %v, want %v", first, last, got, want)
			}
		}
	}
}

// TestTreeHeadOf: the checkpoint from the last tree file and the active
// segment's content is tlog's; an active segment that does not follow the
// tree file (another ledger's, or none where one is needed) is refused.
func TestTreeHeadOf(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 45)
	lines := splitLines(data)
	path := segmented(t, data, 16, 30)
	writeTrees(t, path)
	segs, _ := Segments(path)
	last, err := os.ReadFile(segs[1].TreePath())
	if err != nil {
		t.Fatal(err)
	}
	active := bytes.Join(lines[30:], nil)
	cp, err := TreeHeadOf(LocalOrigin, last, active)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(TreeHead{Origin: LocalOrigin, Size: 45, Root: tlogRoot(t, data)}, cp); diff != "" {
		t.Errorf("TreeHeadOf (-want +got):\n%s", diff)
	}
	empty, err := TreeHeadOf(LocalOrigin, last, nil)
	if err != nil || empty.Size != 30 || empty.Root != tlogRoot(t, bytes.Join(lines[:30], nil)) {
		t.Errorf("TreeHeadOf with an empty active segment = %+v, %v", empty, err)
	}
	first, _ := os.ReadFile(segs[0].TreePath())
	for name, tree := range map[string][]byte{"the tree before": first, "no tree": nil} {
		if _, err := TreeHeadOf(LocalOrigin, tree, active); err == nil {
			t.Errorf("%s: an active segment that does not follow it was accepted", name)
		}
	}
}
