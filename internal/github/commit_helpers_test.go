package github

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

var entryTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// draftFor is the ledger entry a test writes for run.
func draftFor(run string) ledger.Draft {
	return ledger.Draft{Kind: ledger.KindRun, Run: run, Workflow: "w", Time: entryTime, Fields: map[string]any{"selected": "a"}}
}

// chainOnto returns remote with entries for runs chained onto its head.
func chainOnto(t testing.TB, remote []byte, runs ...string) []byte {
	t.Helper()
	head, err := ledger.HeadOf(remote)
	if err != nil {
		t.Fatalf("the remote ledger: %v", err)
	}
	out := bytes.Clone(remote)
	for _, r := range runs {
		es, err := ledger.Chain(head, draftFor(r))
		if err != nil {
			t.Fatal(err)
		}
		line, _ := es[0].Line()
		out = append(out, line...)
		head = es[0].Head()
	}
	return out
}

// ledgerOf is a ledger of one entry per run, from the start.
func ledgerOf(t testing.TB, runs ...string) string {
	return string(chainOnto(t, nil, runs...))
}

// runsOf lists the run of each entry of a ledger.
func runsOf(t testing.TB, l string) []string {
	t.Helper()
	var runs []string
	if err := ledger.Scan(strings.NewReader(l), func(e ledger.Entry) error { runs = append(runs, e.Run); return nil }); err != nil {
		t.Fatalf("ledger %q: %v", l, err)
	}
	return runs
}

// headOf is a ledger's head.
func headOf(t testing.TB, l string) ledger.Head {
	t.Helper()
	h, err := ledger.HeadOf([]byte(l))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// appendLine is a Rechain that chains an entry for run line onto whatever
// ledger it is given, and records what it was given.
type appendLine struct {
	line string
	mu   sync.Mutex
	seen []string
}

func (a *appendLine) rechain(remote []byte) ([]byte, error) {
	a.mu.Lock()
	a.seen = append(a.seen, string(remote))
	a.mu.Unlock()
	head, err := ledger.HeadOf(remote)
	if err != nil {
		return nil, err
	}
	es, err := ledger.Chain(head, draftFor(a.line))
	if err != nil {
		return nil, err
	}
	line, _ := es[0].Line()
	return append(bytes.Clone(remote), line...), nil
}

func (a *appendLine) calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}
