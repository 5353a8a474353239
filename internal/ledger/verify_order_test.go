package ledger

import (
	"bytes"
	"crypto/sha256"
	"sync/atomic"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// checkedBatches cuts data into batches of per lines each and checks
// every one as a checker does, as if the stream continued nothing.
func checkedBatches(t *testing.T, data []byte, per int) []*batch {
	t.Helper()
	lines := splitLines(data)
	c := checker{entry: sha256.New(), leaf: sha256.New(), tree: true}
	var out []*batch
	for i := 0; i < len(lines); i += per {
		buf := bytes.Join(lines[i:min(i+per, len(lines))], nil)
		b := &batch{id: int64(len(out)), buf: buf, n: len(buf), final: i+per >= len(lines)}
		c.check(b, false)
		out = append(out, b)
	}
	return out
}

// orderIn feeds the checked batches and an end mark to an orderer in the
// order given by ids (a permutation of the batches' ids), as checkers that
// finish in that order would, and returns what it reports.
func orderIn(t *testing.T, batches []*batch, ids []int) (streamResult, tlog.Hash) {
	t.Helper()
	var stop atomic.Bool
	pool := make(chan *batch, len(batches))
	done := make(chan streamResult, 1)
	tree := &treeRecorder{b: newTreeBuilder()}
	o := orderer{tree: tree, pending: map[int64]*batch{}, stop: &stop, pool: pool, done: done}
	o.start(Head{})
	checked := make(chan *batch, len(batches)+1)
	for _, id := range ids {
		checked <- batches[id]
	}
	checked <- &batch{id: int64(len(batches)), end: true}
	close(checked)
	o.run(checked)
	return <-done, tree.b.root()
}

// TestOrdererReportsTheFirstBadLine hands the orderer batches in every
// order checkers could finish them in, one bad line in an early batch and
// another in a later one: it must report the early one, the line number
// counted across batches, whichever batch came first.
func TestOrdererReportsTheFirstBadLine(t *testing.T) {
	t.Parallel()
	data := syntheticBytes(t, 40)
	lines := splitLines(data)
	// Line 13 (in the second batch of 10) has a changed value: its hash
	// is wrong. Line 31 (the first of the fourth) is not JSON.
	lines[12] = bytes.Replace(lines[12], []byte(`"kind":"run"`), []byte(`"kind":"nur"`), 1)
	lines[30] = []byte("not json\n")
	batches := checkedBatches(t, bytes.Join(lines, nil), 10)
	if len(batches) != 4 {
		t.Fatalf("%d batches, want 4", len(batches))
	}
	for _, ids := range permutations(4) {
		res, _ := orderIn(t, batches, ids)
		if res.bad == nil || res.bad.Line != 13 || res.bad.Problem != ProblemHash {
			t.Errorf("batches checked in the order %v: reported %v, want the hash of line 13", ids, res.bad)
		}
	}
}

// TestOrdererJoinsBatches checks what only the orderer can see: the first
// line of a batch must follow the last line of the batch before. A line
// whose prev was changed (so its hash is wrong too) is a broken chain
// first, as Verify reports it on one goroutine; and a valid ledger gives
// the same head and Merkle root in any order.
func TestOrdererJoinsBatches(t *testing.T) {
	t.Parallel()
	data := syntheticBytes(t, 30)
	valid := checkedBatches(t, data, 10)
	want, err := Verify(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range permutations(3) {
		res, root := orderIn(t, valid, ids)
		if res.bad != nil || res.err != nil || res.summary != want {
			t.Errorf("order %v: %+v, want %+v", ids, res, want)
		}
		if wantRoot := tlogRoot(t, data); root != wantRoot {
			t.Errorf("order %v: root %s, want %s", ids, root, wantRoot)
		}
	}

	lines := splitLines(data)
	prev := []byte(`"prev":"`)
	at := bytes.Index(lines[20], prev) + len(prev)
	lines[20][at] ^= 1 // 0-9a-f stay hex digits
	broken := checkedBatches(t, bytes.Join(lines, nil), 10)
	if broken[2].bad == nil || broken[2].bad.problem != ProblemHash {
		t.Fatalf("the checker found %v in line 21, want its hash wrong too", broken[2].bad)
	}
	for _, ids := range permutations(3) {
		res, _ := orderIn(t, broken, ids)
		if res.bad == nil || res.bad.Line != 21 || res.bad.Problem != ProblemPrev {
			t.Errorf("order %v: reported %v, want the prev of line 21", ids, res.bad)
		}
	}
}

// permutations lists every order of 0 … n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// TestVerifyReportsTheFirstOfTwoBadLines damages a ledger of many batches
// twice, the later damage being one a checker finds sooner (a line that is
// not JSON fails at its first byte): Verify must name the earlier line,
// every time.
func TestVerifyReportsTheFirstOfTwoBadLines(t *testing.T) {
	t.Parallel()
	lines := splitLines(syntheticBytes(t, 5000)) // about 5 MB: 10 batches
	lines[1199] = bytes.Replace(lines[1199], []byte(`"kind":"run"`), []byte(`"kind":"nur"`), 1)
	lines[3999] = []byte("not json\n")
	data := bytes.Join(lines, nil)
	for range 20 {
		_, err := Verify(bytes.NewReader(data))
		if verr := asVerifyError(t, err); verr.Line != 1200 || verr.Problem != ProblemHash {
			t.Fatalf("Verify: %v, want the hash of line 1200", err)
		}
	}
}
