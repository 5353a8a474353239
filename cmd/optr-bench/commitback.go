package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/commitback"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// commitCase is one ledger to commit back onto.
type commitCase struct {
	name string
	dir  string // holds .optr/ledger.jsonl and .optr/ledger.d
}

// commitStats is what the commit-backs of one case moved and took.
type commitStats struct {
	bytes   int64 // request and answer bodies, median per commit-back
	elapsed time.Duration
	// The samples the medians are of.
	bytesPer []int64
	times    []time.Duration
	active   int64 // the remote active segment's size before the first
	entries  int64 // the ledger's entries before the first
	err      error
}

// measureCommitBack seeds the fake GitHub (githubtest, the same server
// the tests use, over loopback HTTP) with the case's ledger on the
// optr-ledger branch and times count commit-backs of one run each: its
// entry, re-chained onto the branch exactly as the Action does, and a
// run folder's worth of files.
func measureCommitBack(ctx context.Context, c commitCase, count int) commitStats {
	var st commitStats
	// testing.Benchmark hands out a testing.TB outside `go test`, which
	// githubtest needs; the function runs once (b.N is not used).
	once := false
	testing.Benchmark(func(b *testing.B) {
		if once {
			return
		}
		once = true
		st = commitBackOnce(ctx, b, c, count)
	})
	return st
}

func commitBackOnce(ctx context.Context, b *testing.B, c commitCase, count int) commitStats {
	var st commitStats
	s := githubtest.NewServer(b)
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(c.dir, ".optr"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(c.dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		st.err = err
		return st
	}
	known := []byte(files[".optr/ledger.jsonl"])
	st.active = int64(len(known))
	// The tip is an earlier commit-back's: it carries the hint to the
	// newest sealed segment's tree file, as every commit-back leaves it.
	s.Commit(githubtest.DefaultRepo, "optr-ledger", files, "seed"+newestTreeHint(files))
	files = nil
	client, err := github.New(ctx, github.Options{APIURL: s.URL(), Token: "ghs_bench", Repository: githubtest.DefaultRepo, HTTPClient: s.Client()})
	if err != nil {
		st.err = err
		return st
	}
	head, err := ledger.TailHead(filepath.Join(c.dir, ".optr", "ledger.jsonl"))
	if err != nil {
		st.err = err
		return st
	}
	st.entries = head.Seq
	var bytesPer []int64
	var times []time.Duration
	for i := range count {
		run := fmt.Sprintf(".optr/workflows/bench/runs/%s-%d/", c.name, i)
		s.ResetRequests()
		start := time.Now()
		res, err := commitback.Commit(ctx, client, commitback.Request{
			Branch: "optr-ledger", Message: "optr: record run", LedgerPath: ".optr/ledger.jsonl",
			VerifyPublished: true,
			Known:           known, // the workspace's copy, as the driver has it
			Drafts: []ledger.Draft{{Kind: ledger.KindRun, Run: fmt.Sprintf("%s-%d", c.name, i), Workflow: "bench", Time: time.Now().UTC(),
				Fields: map[string]any{"selected": "a", "intent_sha256": strings.Repeat("0", 64)}}},
			Files: map[string][]byte{
				run + "result.md":            []byte(strings.Repeat("All good. ", 200)),
				run + "optr-selection.json":  []byte(`{"selected":"a"}`),
				run + "agent-outputs/a.json": []byte(strings.Repeat(`{"agent":"a"}`, 100)),
			},
		})
		times = append(times, time.Since(start))
		if err != nil {
			st.err = err
			return st
		}
		known = res.Ledger
		var n int64
		for _, r := range s.Requests() {
			n += r.RequestBytes + r.ResponseBytes
		}
		bytesPer = append(bytesPer, n)
	}
	st.bytesPer, st.times = bytesPer, times
	st.medians()
	return st
}

// medians sets bytes and elapsed from the samples.
func (st *commitStats) medians() {
	slices.Sort(st.bytesPer)
	slices.Sort(st.times)
	st.bytes, st.elapsed = st.bytesPer[len(st.bytesPer)/2], st.times[len(st.times)/2]
}

// commitBackRows compares commit-back on an n-entry ledger with a small
// one whose active segment is as full, for the two ends of what a run
// moves: an active segment just started (about 2 KiB, against a 10-entry
// ledger) and one nearly full (8 MiB read and written, against a ledger of
// only that segment). Bytes and time per run must not grow with the
// ledger, only with its active segment, which sealing bounds at 8 MiB; the
// nearly full segment against 10 entries is shown too, for its bytes.
func commitBackRows(ctx context.Context, dir string, n, count int) ([]row, error) {
	small := commitCase{name: "small", dir: filepath.Join(dir, "cb-small")}
	if _, err := segmentedLedger(filepath.Join(small.dir, ".optr"), 10); err != nil {
		return nil, err
	}
	fresh := commitCase{name: "fresh", dir: filepath.Join(dir, "cb-fresh")}
	path, err := segmentedLedger(filepath.Join(fresh.dir, ".optr"), n)
	if err != nil {
		return nil, err
	}
	if err := activeWith(path, 2<<10); err != nil { // about two entries active
		return nil, err
	}
	full := commitCase{name: "full", dir: filepath.Join(dir, "cb-full")}
	path, err = segmentedLedger(filepath.Join(full.dir, ".optr"), n)
	if err != nil {
		return nil, err
	}
	if err := activeWith(path, ledger.SegmentLimit-64<<10); err != nil {
		return nil, err
	}
	active, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// A ledger that is nothing but an active segment as full.
	alone := commitCase{name: "alone", dir: filepath.Join(dir, "cb-alone")}
	if _, err := segmentedLedger(filepath.Join(alone.dir, ".optr"), bytes.Count(active, []byte("\n"))); err != nil {
		return nil, err
	}
	measureCommitBack(ctx, small, 1) // warm up: the first server pays for setup
	// Rounds that take turns, so that a change in the machine's load falls
	// on a case and its base alike; the medians are over all rounds.
	const rounds = 5
	stats := map[string]commitStats{}
	for r := range rounds {
		for _, c := range []commitCase{small, fresh, alone, full} {
			st := measureCommitBack(ctx, c, max(1, (count+rounds-1)/rounds))
			if st.err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, st.err)
			}
			all := stats[c.name]
			if r == 0 {
				all.active, all.entries = st.active, st.entries
			}
			all.bytesPer = append(all.bytesPer, st.bytesPer...)
			all.times = append(all.times, st.times...)
			stats[c.name] = all
		}
	}
	for name, st := range stats {
		st.medians()
		stats[name] = st
	}
	var rows []row
	for _, cmp := range []struct {
		c, base  string
		inherent bool // the time ratio is the active segment's size, not the ledger's length
	}{{"fresh", "small", false}, {"full", "alone", false}, {"full", "small", true}} {
		st, base := stats[cmp.c], stats[cmp.base]
		br := float64(st.bytes) / float64(base.bytes)
		tr := st.elapsed.Seconds() / base.elapsed.Seconds()
		what := fmt.Sprintf("commit-back on %d entries, active %s / on %d entries, active %s (median of %d, in %d rounds)",
			st.entries, kib(st.active), base.entries, kib(base.active), len(st.times), rounds)
		timeGoal, timeOK, timeWhat := "≤ 1.5", tr <= 1.5, ": time"
		if cmp.inherent {
			// Informative: the ratio is the active segment's size (≤ 8 MiB), not the ledger's.
			timeGoal, timeWhat = "", ": time (the ratio of the active segments' sizes)"
		}
		rows = append(rows,
			row{id: "P7", what: what + ": bytes", measured: fmt.Sprintf("%s vs %s", kib(st.bytes), kib(base.bytes)),
				value: fmt.Sprintf("%.2f", br), goal: "≤ 1.5 (≤ 8 MiB + files)", ok: br <= 1.5 || st.bytes <= 2*ledger.SegmentLimit+64<<10},
			row{id: "P7", what: what + timeWhat, measured: fmt.Sprintf("%s vs %s", st.elapsed.Round(100*time.Microsecond), base.elapsed.Round(100*time.Microsecond)),
				value: fmt.Sprintf("%.2f", tr), goal: timeGoal, ok: timeOK})
	}
	return rows, nil
}

func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }

// newestTreeHint is the Optr-Ledger-Tree trailer line (after a blank
// line) naming the newest sealed segment's tree file among files, "" when
// there is none.
func newestTreeHint(files map[string]string) string {
	var newest string
	var last int64
	for p := range files {
		if _, l, err := ledger.ParseTreeName(path.Base(p)); err == nil && l > last {
			newest, last = p, l
		}
	}
	if newest == "" {
		return ""
	}
	return "\n\n" + ledger.TreeHintLine(newest)
}
