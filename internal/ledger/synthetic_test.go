package ledger

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSyntheticMatchesChain holds the hand-built encoding of WriteSynthetic
// to the generic one: every line must equal Chain's line for the same draft.
func TestSyntheticMatchesChain(t *testing.T) {
	t.Parallel()
	at := func(i int) time.Time {
		return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 37 * time.Second)
	}
	for name, o := range map[string]SyntheticOptions{"plain": {}, "spend": {Spend: true, Time: at}, "outcomes": {Spend: true, Outcomes: true, Time: at}, "outcomes, no spend": {Outcomes: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			syntheticMatchesChain(t, o)
		})
	}
}

func syntheticMatchesChain(t *testing.T, o SyntheticOptions) {
	var buf bytes.Buffer
	const n = 200
	head, err := WriteSyntheticWith(&buf, n, o)
	if err != nil {
		t.Fatal(err)
	}

	g := newSynth()
	g.opts = o
	drafts := make([]Draft, n)
	for i := range drafts {
		drafts[i] = g.next(i).draft()
	}
	entries, err := Chain(Head{}, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		want.Write(line)
	}
	if diff := cmp.Diff(want.String(), buf.String()); diff != "" {
		t.Errorf("WriteSynthetic differs from Chain (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(entries[n-1].Head(), head); diff != "" {
		t.Errorf("head (-want +got):\n%s", diff)
	}
}

func TestSyntheticVerifies(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 5000} {
		var buf bytes.Buffer
		head, err := WriteSynthetic(&buf, n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Verify(&buf)
		if err != nil {
			t.Fatalf("n=%d: Verify: %v", n, err)
		}
		if diff := cmp.Diff(Summary{Entries: int64(n), Head: head}, got); diff != "" {
			t.Errorf("n=%d: summary (-want +got):\n%s", n, diff)
		}
	}
}

// A synthetic ledger with outcomes verifies: each follows its run.
func TestSyntheticOutcomesVerify(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	head, err := WriteSyntheticWith(&buf, 5000, SyntheticOptions{Spend: true, Outcomes: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte(`"kind":"outcome"`)); n != 2500 {
		t.Errorf("%d outcomes in 5000 entries, want 2500", n)
	}
	got, err := Verify(&buf)
	if err != nil || got.Head != head {
		t.Fatalf("Verify: %+v, %v", got, err)
	}
}

func TestWriteSyntheticRefusesNegative(t *testing.T) {
	t.Parallel()
	if _, err := WriteSynthetic(&bytes.Buffer{}, -1); err == nil {
		t.Error("WriteSynthetic(-1) succeeded, want an error")
	}
}
