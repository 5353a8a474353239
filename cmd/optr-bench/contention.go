package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/commitback"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// contentionBranch is the branch P12's runs commit to.
const contentionBranch = "optr-ledger"

// contention is what n commit-backs onto one branch took, started at once
// or one after another.
type contention struct {
	requests int           // requests the server answered, retries included
	sent     int64         // request bodies' bytes
	last     time.Duration // from the start until the last commit landed
	rounds   int           // read-rechain-update rounds, lost ones included
}

// contentionRows is P12: n runs commit back onto one ledger branch at once,
// each from its own client as separate jobs do, against the githubtest
// fake; every request waits latency first, a stand-in for GitHub's round
// trip. For each n it reports the requests per commit, and the time until
// the last of them landed against a serial queue of the same n
// commit-backs, one after another (goal at 8: ≤ 2). Medians of runs.
func contentionRows(ctx context.Context, ns []int, runs int, latency time.Duration) ([]row, error) {
	var rows []row
	for _, n := range ns {
		var reqs, sent []float64
		var conc, serial []time.Duration
		for range runs {
			c, err := contend(ctx, n, true, latency)
			if err != nil {
				return nil, fmt.Errorf("%d at once: %w", n, err)
			}
			s, err := contend(ctx, n, false, latency)
			if err != nil {
				return nil, fmt.Errorf("%d in a queue: %w", n, err)
			}
			reqs = append(reqs, float64(c.requests)/float64(n))
			sent = append(sent, float64(c.sent)/float64(n))
			conc, serial = append(conc, c.last), append(serial, s.last)
		}
		rq, c, s := median(reqs), medianDuration(conc), medianDuration(serial)
		what := fmt.Sprintf("commit-back, %d runs at once on one branch (latency %s a request, median of %d)", n, latency, runs)
		ratio := c.Seconds() / s.Seconds()
		timeRow := row{id: "P12", what: what + ": the last landed / a serial queue",
			measured: fmt.Sprintf("%s vs %s", c.Round(time.Millisecond), s.Round(time.Millisecond)), value: fmt.Sprintf("%.2f", ratio)}
		if n == 8 {
			timeRow.goal, timeRow.ok = "≤ 2", ratio <= 2
		}
		rows = append(rows,
			row{id: "P12", what: what + ": requests per commit", measured: fmt.Sprintf("%.0f requests, %s sent a commit", rq*float64(n), kib(int64(median(sent)))), value: fmt.Sprintf("%.1f", rq)},
			timeRow)
	}
	return rows, nil
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func medianDuration(xs []time.Duration) time.Duration {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// contend commits n runs onto a fresh branch, all at once or one after
// another, and checks that every run landed exactly once.
func contend(ctx context.Context, n int, atOnce bool, latency time.Duration) (contention, error) {
	var out contention
	var err error
	withTB(func(tb testing.TB) { out, err = contendOn(ctx, tb, n, atOnce, latency) })
	return out, err
}

func contendOn(ctx context.Context, tb testing.TB, n int, atOnce bool, latency time.Duration) (contention, error) {
	s := githubtest.NewServer(tb)
	seed, err := contentionSeed()
	if err != nil {
		return contention{}, err
	}
	s.Commit(githubtest.DefaultRepo, contentionBranch, seed, "seed"+newestTreeHint(seed))
	s.ResetRequests()
	results := make([]commitback.Result, n)
	errs := make([]error, n)
	start := time.Now()
	var last time.Duration
	var mu sync.Mutex
	commit := func(i int) {
		// A client and connections of its own, as a job has.
		hc := &http.Client{Transport: delayed{base: s.Client().Transport.(*http.Transport).Clone(), latency: latency}}
		res, err := commitRun(ctx, s, hc, i)
		mu.Lock()
		defer mu.Unlock()
		results[i], errs[i] = res, err
		last = max(last, time.Since(start))
	}
	if atOnce {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { commit(i) })
		}
		wg.Wait()
	} else {
		for i := range n {
			commit(i)
		}
	}
	out := contention{last: last}
	for _, r := range s.Requests() {
		out.requests++
		out.sent += r.RequestBytes
	}
	for i, err := range errs {
		if err != nil {
			return out, fmt.Errorf("run %d: %w", i, err)
		}
		out.rounds += results[i].Attempts
	}
	final, _ := s.File(githubtest.DefaultRepo, contentionBranch, ".optr/ledger.jsonl")
	runs := map[string]int{}
	if err := ledger.Scan(strings.NewReader(final), func(e ledger.Entry) error { runs[e.Run]++; return nil }); err != nil {
		return out, fmt.Errorf("the ledger on the branch: %w", err)
	}
	for i := range n {
		if r := fmt.Sprint("run-", i); runs[r] != 1 {
			return out, fmt.Errorf("%s is in the ledger %d times, want once", r, runs[r])
		}
	}
	return out, nil
}

func contentionDraft(run string) ledger.Draft {
	return ledger.Draft{Kind: ledger.KindRun, Run: run, Workflow: "bench", Time: time.Now().UTC(),
		Fields: map[string]any{"selected": "a", "intent_sha256": strings.Repeat("0", 64)}}
}

// contentionSeed is the branch P12's runs commit onto, as optr keeps it:
// entries 1–20 sealed in ledger.d with their tree file, 21–30 active.
func contentionSeed() (map[string]string, error) {
	var synthetic bytes.Buffer
	if _, err := ledger.WriteSynthetic(&synthetic, 30); err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(synthetic.Bytes(), []byte("\n"))
	sealed := bytes.Join(lines[:20], nil)
	tree, err := ledger.SegmentTree(nil, sealed)
	if err != nil {
		return nil, err
	}
	seg := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 20))}
	return map[string]string{seg.Path: string(sealed), seg.TreePath(): string(tree), ".optr/ledger.jsonl": string(bytes.Join(lines[20:30], nil))}, nil
}

// commitRun commits run i as the Action's recorder does, from a client of
// its own.
func commitRun(ctx context.Context, s *githubtest.Server, hc *http.Client, i int) (commitback.Result, error) {
	client, err := github.New(ctx, github.Options{APIURL: s.URL(), Token: "ghs_bench", Repository: githubtest.DefaultRepo, HTTPClient: hc})
	if err != nil {
		return commitback.Result{}, err
	}
	dir := fmt.Sprintf(".optr/workflows/bench/runs/run-%d/", i)
	return commitback.Commit(ctx, client, commitback.Request{
		Branch: contentionBranch, Message: "optr: record run", LedgerPath: ".optr/ledger.jsonl",
		Drafts: []ledger.Draft{contentionDraft(fmt.Sprint("run-", i))},
		Files: map[string][]byte{
			dir + "result.md":            []byte(strings.Repeat("All good. ", 200)),
			dir + "optr-selection.json":  []byte(`{"selected":"a"}`),
			dir + "agent-outputs/a.json": []byte(strings.Repeat(`{"agent":"a"}`, 100)),
		},
	})
}

// delayed holds every request for latency before sending it: GitHub's
// round trip, which the loopback fake does not have.
type delayed struct {
	base    http.RoundTripper
	latency time.Duration
}

func (d delayed) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.latency > 0 {
		t := time.NewTimer(d.latency)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-t.C:
		}
	}
	return d.base.RoundTrip(r)
}
