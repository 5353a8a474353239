package commitback

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/gitdata/gitdatatest"
)

// A round after a lost one sends only what changed: the ledger. The run's
// text, its binary file and its local file go by the blob shas GitHub
// already has from the first round.
func TestLostRoundSendsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	r := gitdatatest.New()
	r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
	r.BeforeNext("UpdateRef", func() { r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a", "b")}, "b") })
	local := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(local, bytes.Repeat([]byte("{}\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	r.ResetCalls()
	res, err := committer(r).Commit(t.Context(), Request{
		Branch: "main", Message: "c", LedgerPath: ledgerPath, Drafts: draftsFor("c"),
		Files: map[string][]byte{"run/result.md": bytes.Repeat([]byte("All good. "), 200), "run/bin": {0xff, 0xfe}},
		Paths: map[string]string{"run/out.json": local},
	})
	if err != nil {
		t.Fatal(err)
	}
	var trees []int64
	for _, c := range r.Calls() {
		if c.Op == "CreateTree" {
			trees = append(trees, c.Sent)
		}
	}
	first := int64(len(ledgerOf(t, "a", "c")) + 2000)
	if diff := cmp.Diff([]int64{first, int64(len(res.Ledger))}, trees); diff != "" {
		t.Errorf("bytes inline in each round's tree (-want +got): the second round sends the ledger only\n%s", diff)
	}
	if n := r.Counts()["CreateBlob"]; n != 2 {
		t.Errorf("%d blobs created, want 2 (the binary file and the local one, once)", n)
	}
	want := map[string]string{"README.md": "# octo-repo\n", ledgerPath: ledgerOf(t, "a", "b", "c"),
		"run/result.md": string(bytes.Repeat([]byte("All good. "), 200)), "run/bin": "\xff\xfe", "run/out.json": string(bytes.Repeat([]byte("{}\n"), 1000))}
	if diff := cmp.Diff(want, r.Files("main")); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// The wait after a lost round is measured in that round: the backoff is
// told how long it took, on the store's time.
func TestBackoffIsToldTheRound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const latency = 70 * time.Millisecond
		r := gitdatatest.New(gitdatatest.WithLatency(latency))
		r.BeforeNext("UpdateRef", func() { r.Commit("main", map[string]string{"x": "moved"}, "moved") })
		type call struct {
			Lost  int
			Round time.Duration
		}
		var calls []call
		c := &Committer{Store: r, Backoff: func(lost int, round time.Duration) time.Duration {
			calls = append(calls, call{lost, round})
			return ContentionBackoff(lost, round)
		}}
		if _, err := c.Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]call{{1, 5 * latency}}, calls); diff != "" {
			t.Errorf("backoff calls (-want +got): one, for a round of five requests\n%s", diff)
		}
	})
}

// The contention backoff draws from a window of rounds: 2 at the first
// loss, a quarter more at each further one, at most 32 rounds and a
// minute.
func TestContentionBackoff(t *testing.T) {
	t.Parallel()
	round := 100 * time.Millisecond
	for _, tc := range []struct {
		lost  int
		round time.Duration
		want  time.Duration
	}{
		{1, round, 200 * time.Millisecond},
		{2, round, 250 * time.Millisecond},
		{3, round, 312500 * time.Microsecond},
		{40, round, 32 * round},
		{40, 10 * time.Second, time.Minute},
		{1, 0, 2 * time.Millisecond}, // a round takes at least a millisecond
	} {
		if got := contentionWindow(tc.lost, tc.round); got != tc.want {
			t.Errorf("contentionWindow(%d, %s) = %s, want %s", tc.lost, tc.round, got, tc.want)
		}
		for range 100 {
			if d := ContentionBackoff(tc.lost, tc.round); d < 0 || d >= tc.want {
				t.Fatalf("ContentionBackoff(%d, %s) = %s, outside [0, %s)", tc.lost, tc.round, d, tc.want)
			}
		}
	}
}

// Runs that commit back at once each land exactly once, on a linear
// history, and the last lands within a small multiple of what a serial
// queue of the same commit-backs takes, on the store's time (a fixed
// backoff from 250 ms left runs whose rounds take 5 ms waiting tenfold);
// cmd/optr-bench (P12) measures it over HTTP.
func TestContention(t *testing.T) {
	t.Parallel()
	for _, latency := range []time.Duration{time.Millisecond, 100 * time.Millisecond} {
		t.Run(fmt.Sprint(latency), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { contend(t, 8, latency) })
		})
	}
}

func contend(t *testing.T, n int, latency time.Duration) {
	r := gitdatatest.New(gitdatatest.WithLatency(latency))
	r.Commit("optr-ledger", map[string]string{ledgerPath: ledgerOf(t, "seed")}, "seed")
	r.ResetCalls()
	files := func(i int) map[string][]byte {
		return map[string][]byte{fmt.Sprintf("runs/%d/result.md", i): bytes.Repeat([]byte("All good. "), 200)}
	}
	start := time.Now()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		last    time.Duration
		results = make([]Result, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			res, err := Commit(t.Context(), r, Request{Branch: "optr-ledger", Message: fmt.Sprint("run ", i), LedgerPath: ledgerPath,
				Drafts: draftsFor(fmt.Sprint("run ", i)), Files: files(i)})
			mu.Lock()
			defer mu.Unlock()
			results[i], errs[i] = res, err
			last = max(last, time.Since(start))
		})
	}
	wg.Wait()
	rounds, requests := 0, 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		rounds += results[i].Attempts
		requests += results[i].Requests
	}
	final, _ := r.File("optr-ledger", ledgerPath)
	count := map[string]int{}
	for _, run := range runsOf(t, final) {
		count[run]++
	}
	for i := range n {
		if run := fmt.Sprint("run ", i); count[run] != 1 {
			t.Errorf("%s is in the ledger %d times, want once", run, count[run])
		}
	}
	if log := r.Log("optr-ledger"); len(log) != n+2 {
		t.Errorf("%d commits on the branch, want %d: one per run on the seed", len(log), n+2)
	}
	if requests != 5*rounds {
		t.Errorf("%d requests in %d rounds, want 5 a round", requests, rounds)
	}
	// Every round sent the ledger; only each run's first sent its file.
	var sent int64
	for _, c := range r.Calls() {
		sent += c.Sent
	}
	if limit := int64(rounds*len(final) + n*2000); sent > limit {
		t.Errorf("%d bytes sent in %d rounds, want at most %d: a lost round sends the ledger only", sent, rounds, limit)
	}
	serial := time.Duration(n) * 5 * latency
	t.Logf("%d at once, %s a request: the last landed after %s (a serial queue: %s), %.1f requests a commit", n, latency, last, serial, float64(requests)/float64(n))
	if last > 4*serial {
		t.Errorf("the last run landed after %s, more than 4 × the %s of a serial queue", last, serial)
	}
}
