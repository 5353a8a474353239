package ledger

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ledgerOf chains drafts onto head and returns the entries and their lines.
func ledgerOf(t *testing.T, head Head, drafts ...Draft) ([]Entry, []byte) {
	t.Helper()
	entries, err := Chain(head, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	return entries, linesOf(t, entries)
}

func noteDraft(run string, i int) Draft {
	return Draft{Kind: "note", Run: run, Workflow: "w", Time: testEpoch.Add(time.Duration(i) * time.Second), Fields: map[string]any{"i": i}}
}

// checkRechained checks the invariants of every Rechain result: the new
// ledger verifies, it starts with remote unchanged, and each of mine is in
// it exactly once, as rechained says.
func checkRechained(t *testing.T, remote, appended []byte, mine, rechained []Entry) {
	t.Helper()
	full := append(bytes.Clone(remote), appended...)
	if _, err := Verify(bytes.NewReader(full)); err != nil {
		t.Fatalf("the rechained ledger does not verify: %v", err)
	}
	if len(rechained) != len(mine) {
		t.Fatalf("rechained %d entries, want %d", len(rechained), len(mine))
	}
	for i, e := range rechained {
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(full, line); n != 1 {
			t.Errorf("entry %d (seq %d) is in the ledger %d times, want once", i, e.Seq, n)
		}
		m := mine[i]
		if e.Kind != m.Kind || e.Run != m.Run || e.Time != m.Time || e.Workflow != m.Workflow || !cmp.Equal(e.Fields, m.Fields) {
			t.Errorf("entry %d changed beyond seq, prev and hash:\n got %+v\nwant %+v", i, e, m)
		}
	}
}

func TestRechainEmptyRemote(t *testing.T) {
	t.Parallel()
	mine, lines := ledgerOf(t, Head{}, runDraft("1-1", 0), noteDraft("1-1", 1))
	appended, rechained, err := Rechain(nil, mine)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(lines), string(appended)); diff != "" {
		t.Errorf("appended (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mine, rechained); diff != "" {
		t.Errorf("rechained (-want +got):\n%s", diff)
	}
}

func TestRechainRemoteMovedAhead(t *testing.T) {
	t.Parallel()
	base, baseLines := ledgerOf(t, Head{}, runDraft("1-1", 0), runDraft("2-1", 1))
	head := base[1].Head()
	mine, _ := ledgerOf(t, head, runDraft("3-1", 2), noteDraft("3-1", 3))
	// Meanwhile three entries from other runs landed on the remote.
	_, theirs := ledgerOf(t, head, runDraft("4-1", 4), runDraft("5-1", 5), noteDraft("5-1", 6))
	remote := append(bytes.Clone(baseLines), theirs...)

	appended, rechained, err := Rechain(remote, mine)
	if err != nil {
		t.Fatal(err)
	}
	checkRechained(t, remote, appended, mine, rechained)
	if rechained[0].Seq != 6 || rechained[1].Seq != 7 {
		t.Errorf("rechained seqs %d, %d; want 6, 7", rechained[0].Seq, rechained[1].Seq)
	}
	if got := bytes.Count(appended, []byte{'\n'}); got != 2 {
		t.Errorf("appended %d lines, want 2", got)
	}
}

// TestRechainIdempotent covers a retried commit whose first attempt landed:
// nothing is appended again, whichever entries the retry passes.
func TestRechainIdempotent(t *testing.T) {
	t.Parallel()
	_, baseLines := ledgerOf(t, Head{}, runDraft("1-1", 0))
	base, err := Chain(Head{}, runDraft("1-1", 0))
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := ledgerOf(t, base[0].Head(), runDraft("2-1", 1), noteDraft("2-1", 2))
	_, theirs := ledgerOf(t, base[0].Head(), runDraft("3-1", 3))
	remote := append(bytes.Clone(baseLines), theirs...)

	appended, rechained, err := Rechain(remote, mine)
	if err != nil {
		t.Fatal(err)
	}
	landed := append(bytes.Clone(remote), appended...)
	// Someone else appends after our commit landed.
	last := rechained[len(rechained)-1].Head()
	_, later := ledgerOf(t, last, runDraft("4-1", 4))
	landed = append(landed, later...)

	for name, retry := range map[string][]Entry{"original entries": mine, "rechained entries": rechained} {
		again, twice, err := Rechain(landed, retry)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(again) != 0 {
			t.Errorf("%s: appended again:\n%s", name, again)
		}
		if diff := cmp.Diff(rechained, twice); diff != "" {
			t.Errorf("%s: rechained (-first +retry):\n%s", name, diff)
		}
		checkRechained(t, landed, again, mine, twice)
	}
}

// TestRechainPartlyPresent: the remote holds the first of mine but not the
// second (they were committed separately); only the second is appended.
func TestRechainPartlyPresent(t *testing.T) {
	t.Parallel()
	mine, lines := ledgerOf(t, Head{}, runDraft("1-1", 0), noteDraft("1-1", 1))
	first := splitLines(lines)[0]
	_, theirs := ledgerOf(t, mine[0].Head(), runDraft("2-1", 2))
	remote := append(bytes.Clone(first), theirs...)

	appended, rechained, err := Rechain(remote, mine)
	if err != nil {
		t.Fatal(err)
	}
	checkRechained(t, remote, appended, mine, rechained)
	if rechained[0].Seq != 1 || rechained[1].Seq != 3 {
		t.Errorf("seqs %d, %d; want 1 (already there) and 3", rechained[0].Seq, rechained[1].Seq)
	}
}

// TestRechainUnknownBase: mine were chained on a ledger the remote never
// had (a local ledger); the whole remote is searched and mine go on top.
func TestRechainUnknownBase(t *testing.T) {
	t.Parallel()
	local, err := Chain(Head{}, noteDraft("local", 0), noteDraft("local", 1))
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := ledgerOf(t, local[1].Head(), runDraft("7-1", 7))
	_, remote := ledgerOf(t, Head{}, runDraft("1-1", 1), runDraft("2-1", 2), runDraft("3-1", 3), runDraft("4-1", 4))

	appended, rechained, err := Rechain(remote, mine)
	if err != nil {
		t.Fatal(err)
	}
	checkRechained(t, remote, appended, mine, rechained)
	if rechained[0].Seq != 5 {
		t.Errorf("seq %d, want 5", rechained[0].Seq)
	}
}

func TestRechainRefuses(t *testing.T) {
	t.Parallel()
	base, baseLines := ledgerOf(t, Head{}, runDraft("1-1", 0), runDraft("2-1", 1))
	mine, _ := ledgerOf(t, base[1].Head(), runDraft("3-1", 2), noteDraft("3-1", 3))
	conflicting := runDraft("3-1", 9) // same run id, different content
	_, theirs := ledgerOf(t, base[1].Head(), conflicting)

	tampered := append([]Entry(nil), mine...)
	tampered[1].Fields = map[string]any{"i": 99}
	gap := []Entry{mine[0], mine[1], mine[1]}

	baseNoNL := baseLines[:len(baseLines)-1]
	badTail := bytes.Replace(bytes.Clone(baseLines), []byte(`"run":"2-1"`), []byte(`"run":"2-2"`), 1)
	// An entry after the base that links to the wrong predecessor.
	_, misLinked := ledgerOf(t, Head{Seq: 2, Hash: base[0].Hash}, runDraft("4-1", 4))
	brokenLink := append(bytes.Clone(baseLines), misLinked...)

	tests := []struct {
		name   string
		remote []byte
		mine   []Entry
		want   string
	}{
		{"run id recorded with other content", append(bytes.Clone(baseLines), theirs...), mine, `run "3-1" is already recorded in the remote ledger (seq 3) with different content`},
		{"torn remote", baseNoNL, mine, "the last line is incomplete"},
		{"tampered remote tail", badTail, mine, "line 2: hash is"},
		{"remote entries out of order", brokenLink, mine, "does not follow the one before it"},
		{"tampered entry", baseLines, tampered, "it was changed after it was chained"},
		{"not one chain", baseLines, gap, "the entries are not one chain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := Rechain(tt.remote, tt.mine)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Rechain error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestRechainNothing(t *testing.T) {
	t.Parallel()
	appended, rechained, err := Rechain([]byte("whatever"), nil)
	if err != nil || appended != nil || rechained != nil {
		t.Errorf("Rechain(_, nil) = %q, %v, %v; want nothing", appended, rechained, err)
	}
}
