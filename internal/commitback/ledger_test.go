package commitback

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
)

// TestCommitVerifiesPublishedHead: with VerifyPublished the branch's
// ledger must still hold the head of the latest Optr-Ledger trailers; a
// rewritten (re-chained) or truncated ledger stops the commit-back with a
// *RewrittenLedgerError, and nothing is written.
func TestCommitVerifiesPublishedHead(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, r remote) // after two honest runs
		want   string
	}{
		{"honest", func(t *testing.T, r remote) {
			r.Commit("main", map[string]string{"docs/x.md": "someone else's commit\n"}, "docs")
		}, ""},
		{"rewritten and rechained", func(t *testing.T, r remote) {
			r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "r1", "r2-rewritten")}, "tidy the ledger")
		}, "was rewritten"},
		{"truncated", func(t *testing.T, r remote) {
			r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "r1")}, "drop the last run")
		}, "truncated"},
		{"forged trailer", func(t *testing.T, r remote) {
			r.Commit("main", map[string]string{"x": "y"}, "x\n\nOptr-Ledger-Size: 2\nOptr-Ledger-Head: "+strings.Repeat("ab", 32))
		}, "was rewritten"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachRemote(t, false, func(t *testing.T, r remote) {
				for _, run := range []string{"r1", "r2"} {
					if _, err := Commit(t.Context(), r, Request{Branch: "main", Message: "run " + run, LedgerPath: ledgerPath, Drafts: draftsFor(run)}); err != nil {
						t.Fatal(err)
					}
				}
				tt.tamper(t, r)
				before := r.Head("main")
				r.ResetCounts()
				_, err := Commit(t.Context(), r, Request{Branch: "main", Message: "run r3", LedgerPath: ledgerPath, Drafts: draftsFor("r3"), VerifyPublished: true})
				if tt.want == "" {
					if err != nil {
						t.Fatalf("an honest history was refused: %v", err)
					}
					return
				}
				var re *RewrittenLedgerError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "optr ledger verify --witness") {
					t.Fatalf("error = %v, want a *RewrittenLedgerError saying %q", err, tt.want)
				}
				if r.Head("main") != before || r.Count("CreateTree") != 0 {
					t.Errorf("the branch moved or a tree was created after the check failed")
				}
			})
		})
	}
}

// nearlyFull is a valid ledger just under the segment limit.
func nearlyFull(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := ledger.WriteSynthetic(&buf, 12000); err != nil {
		t.Fatal(err)
	}
	var out []byte
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), ledger.MaxLineSize)
	for sc.Scan() {
		if len(out)+len(sc.Bytes())+1 > ledger.SegmentLimit-64 {
			// Top it up with small entries until the next one passes.
			for {
				next := chainOnto(t, out, "pad")
				if len(next) > ledger.SegmentLimit {
					return out
				}
				out = next
			}
		}
		out = append(append(out, sc.Bytes()...), '\n')
	}
	t.Fatalf("the synthetic ledger is smaller than %d bytes", ledger.SegmentLimit)
	return nil
}

// TestCommitSeals: an append that takes the active segment past 8 MiB
// seals it into ledger.d/ by its blob sha (the same blob, not uploaded
// again), and the new entries start a new active segment.
func TestCommitSeals(t *testing.T) {
	full := nearlyFull(t)
	last := headOf(t, string(full))
	segPath := path.Join(".optr/ledger.d", ledger.SegmentName(1, last.Seq))
	wantTree, err := ledger.SegmentTree(nil, full)
	if err != nil {
		t.Fatal(err)
	}
	forEachRemote(t, false, func(t *testing.T, r remote) {
		r.Commit("main", map[string]string{ledgerPath: string(full)}, "full")
		r.ResetCounts()
		res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("next")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Sealed == nil || res.Sealed.Path != segPath || !bytes.Equal(res.Sealed.Content, full) {
			t.Fatalf("Sealed = %v, want %s holding the old active segment (ledger %d bytes, full %d)", res.Sealed != nil, segPath, len(res.Ledger), len(full))
		}
		files := r.Files("main")
		if files[segPath] != string(full) {
			t.Errorf("the sealed segment on the branch is not the old active segment")
		}
		if diff := cmp.Diff([]string{"next"}, runsOf(t, files[ledgerPath])); diff != "" {
			t.Errorf("the new active segment (-want +got):\n%s", diff)
		}
		if res.Head.Seq != last.Seq+1 || res.Previous != last {
			t.Errorf("head %+v from %+v, want seq %d from the sealed segment's head", res.Head, res.Previous, last.Seq+1)
		}
		if got := files[ledger.Segment{Path: segPath}.TreePath()]; got != string(wantTree) {
			t.Errorf("the sealed segment's tree file on the branch is\n%s\nwant\n%s", got, wantTree)
		}
		if res.Requests != 5 || r.Count("CreateBlob") != 0 || r.Sent() > 64<<10 {
			t.Errorf("%d requests, %d blobs, %d bytes sent: the sealed segment must reuse its blob", res.Requests, r.Count("CreateBlob"), r.Sent())
		}
		// The published head is now in the sealed segment as far as a later
		// Published check goes, and the trailers' head in the active one.
		_, err = Commit(t.Context(), r, Request{Branch: "main", Message: "m2", LedgerPath: ledgerPath, Drafts: draftsFor("after"),
			VerifyPublished: true, Published: last})
		if err != nil {
			t.Errorf("a commit-back after the seal, checking a head in the sealed segment: %v", err)
		}
	})
}

// TestCommitSealsWithTheTreeBefore: sealing a segment that follows another
// commits its tree file, computed from the one before it on the branch;
// without that one the segment is sealed all the same, without a tree
// file.
func TestCommitSealsWithTheTreeBefore(t *testing.T) {
	full := nearlyFull(t)
	lines := bytes.SplitAfter(full, []byte("\n"))
	sealed := bytes.Join(lines[:50], nil)
	active := bytes.Join(lines[50:], nil)
	// Top the active segment up again to just under the limit.
	pad := len(chainOnto(t, active, "pad")) - len(active)
	many := make([]string, (ledger.SegmentLimit-len(active))/pad-1)
	for i := range many {
		many[i] = "pad"
	}
	active = chainOnto(t, active, many...)
	for next := chainOnto(t, active, "pad"); len(next) <= ledger.SegmentLimit; next = chainOnto(t, active, "pad") {
		active = next
	}
	firstTree, err := ledger.SegmentTree(nil, sealed)
	if err != nil {
		t.Fatal(err)
	}
	first := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 50))}
	last := headOf(t, string(active))
	second := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(51, last.Seq))}
	wantTree, err := ledger.SegmentTree(firstTree, active)
	if err != nil {
		t.Fatal(err)
	}
	for _, withTree := range []bool{true, false} {
		t.Run(fmt.Sprint("with the tree before ", withTree), func(t *testing.T) {
			forEachRemote(t, false, func(t *testing.T, r remote) {
				seed := map[string]string{first.Path: string(sealed), ledgerPath: string(active)}
				msg := "seed"
				if withTree {
					// As an earlier commit-back leaves it: the tree file and its hint.
					seed[first.TreePath()] = string(firstTree)
					msg += "\n\n" + ledger.TreeHintLine(first.TreePath())
				}
				r.Commit("main", seed, msg)
				r.ResetCounts()
				res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("next")})
				if err != nil {
					t.Fatal(err)
				}
				// The hint spares the seal a listing of ledger.d, whose answer
				// grows with the ledger; without one the seal lists it once.
				if n, want := r.Listings(".optr/ledger.d"), map[bool]int{true: 0, false: 1}[withTree]; n != want {
					t.Errorf("the seal listed ledger.d %d times, want %d", n, want)
				}
				if res.Sealed == nil || res.Sealed.Path != second.Path {
					t.Fatalf("sealed %+v, want %s", res.Sealed, second.Path)
				}
				got, ok := r.Files("main")[second.TreePath()]
				if withTree && got != string(wantTree) {
					t.Errorf("the tree file committed beside %s is\n%s\nwant\n%s", second.Path, got, wantTree)
				}
				if !withTree && ok {
					t.Errorf("a tree file was committed without the one before it:\n%s", got)
				}
			})
		})
	}
}

// TestCommitKnownLedgerIsNotDownloaded: with Known equal to the branch's
// ledger, the raw ledger is not read again; with a stale Known it is, and
// the commit chains onto the real remote.
func TestCommitKnownLedgerIsNotDownloaded(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		seed := ledgerOf(t, "a", "b")
		r.Commit("main", map[string]string{ledgerPath: seed}, "seed")
		for _, tc := range []struct {
			name  string
			known string
			raw   bool // the raw file must be read
		}{
			{"known", "", false},
			{"stale", ledgerOf(t, "a"), true},
		} {
			r.ResetCounts()
			before, _ := r.File("main", ledgerPath)
			if tc.name == "known" {
				tc.known = before
			}
			res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Known: []byte(tc.known), Drafts: draftsFor(tc.name)})
			if err != nil {
				t.Fatal(err)
			}
			if raw := r.Reads(ledgerPath); (raw > 0) != tc.raw {
				t.Errorf("%s: %d raw reads of the ledger", tc.name, raw)
			}
			if string(res.Ledger) != string(chainOnto(t, []byte(before), tc.name)) {
				t.Errorf("%s: the committed ledger is not the remote one plus this run", tc.name)
			}
		}
	})
}

// segmentedSeed is a 30-entry ledger as optr keeps it: entries 1–20
// sealed in ledger.d with their tree file, 21–30 active.
func segmentedSeed(t *testing.T) (seg ledger.Segment, sealed, tree, active []byte) {
	t.Helper()
	var synthetic bytes.Buffer
	if _, err := ledger.WriteSynthetic(&synthetic, 30); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(synthetic.Bytes(), []byte("\n"))
	sealed, active = bytes.Join(lines[:20], nil), bytes.Join(lines[20:30], nil)
	tree, err := ledger.SegmentTree(nil, sealed)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 20))}, sealed, tree, active
}

// TestCommitFindsTheLastTreeByItsHint: with sealed segments on the branch,
// a commit-back returns the newest tree file (LastTree) for the
// checkpoint. Without a hint on the tip it lists ledger.d once and leaves
// the Optr-Ledger-Tree hint in its commit; every later commit-back reads
// the file by that hint and lists nothing, so what a run moves does not
// grow with the number of segments.
func TestCommitFindsTheLastTreeByItsHint(t *testing.T) {
	seg, sealed, tree, active := segmentedSeed(t)
	forEachRemote(t, false, func(t *testing.T, r remote) {
		r.Commit("main", map[string]string{seg.Path: string(sealed), seg.TreePath(): string(tree), ledgerPath: string(active)}, "seed")
		for i, wantListings := range []int{1, 0, 0} {
			r.ResetCounts()
			res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor(fmt.Sprint("run ", i))})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.LastTree, tree) {
				t.Fatalf("commit-back %d: LastTree\n%s\nwant the sealed segment's\n%s", i, res.LastTree, tree)
			}
			if n := r.Listings(".optr/ledger.d"); n != wantListings {
				t.Errorf("commit-back %d listed ledger.d %d times, want %d", i, n, wantListings)
			}
			if msg := r.Log("main")[0].Message; ledger.TreeHint(msg) != seg.TreePath() {
				t.Errorf("commit-back %d: the commit's hint is %q, want %s:\n%s", i, ledger.TreeHint(msg), seg.TreePath(), msg)
			}
		}
	})
}

// A hint naming a tree file the tip does not hold is not trusted: the
// missing file is looked for in ledger.d, and a commit-back that finds
// none there carries no hint on, rather than the dangling one.
func TestCommitDropsADanglingTreeHint(t *testing.T) {
	seg, sealed, _, active := segmentedSeed(t)
	forEachRemote(t, false, func(t *testing.T, r remote) {
		r.Commit("main", map[string]string{seg.Path: string(sealed), ledgerPath: string(active)}, "seed\n\n"+ledger.TreeHintLine(seg.TreePath()))
		r.ResetCounts()
		res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("run")})
		if err != nil {
			t.Fatal(err)
		}
		if res.LastTree != nil {
			t.Errorf("LastTree = %q, want none: the tree file is missing", res.LastTree)
		}
		if n := r.Listings(".optr/ledger.d"); n != 1 {
			t.Errorf("ledger.d listed %d times, want 1 (the hint's file is missing)", n)
		}
		if hint := ledger.TreeHint(r.Log("main")[0].Message); hint != "" {
			t.Errorf("the commit carries the dangling hint %q on", hint)
		}
	})
}

// A round after a lost one does not read the newest tree file again: the
// file is named by its range and never changes.
func TestCommitReadsTheTreeOnce(t *testing.T) {
	seg, sealed, tree, active := segmentedSeed(t)
	forEachRemote(t, false, func(t *testing.T, r remote) {
		hint := "\n\n" + ledger.TreeHintLine(seg.TreePath())
		r.Commit("main", map[string]string{seg.Path: string(sealed), seg.TreePath(): string(tree), ledgerPath: string(active)}, "seed"+hint)
		r.BeforeNextUpdate(func() {
			r.Commit("main", map[string]string{ledgerPath: string(chainOnto(t, active, "other"))}, "other"+hint)
		})
		r.ResetCounts()
		res, err := committer(r).Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("run")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Attempts != 2 || !bytes.Equal(res.LastTree, tree) {
			t.Fatalf("%d attempts, LastTree %q; want 2 and the sealed segment's tree", res.Attempts, res.LastTree)
		}
		if n := r.Reads(seg.TreePath()); n != 1 || res.Requests != 11 {
			t.Errorf("the tree file read %d times in %d requests, want once in 11 (6 + 5)", n, res.Requests)
		}
	})
}
