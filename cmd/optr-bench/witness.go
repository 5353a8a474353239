package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness"
	"github.com/optr-dev/optr/internal/tlogwitness/witnesstest"
)

// witnessRequests measures what C2SP witnesses cost a commit-back: runs
// commit one after another, each submitting its checkpoint to two
// reference witnesses (transparency-dev/witness, in process) from the
// size before its entries, as the Action does; one witness is down for
// one run, so the run after it learns the witness's size (409) first.
// It reports the most requests one commit-back sent one witness when
// every witness saw the run before (goal ≤ 2), and after the outage.
func witnessRequests(ctx context.Context, dir string, runs int) ([]row, error) {
	const origin = "optr/bench/ledger"
	skey, vkey, err := ledger.GenerateKey(origin)
	if err != nil {
		return nil, err
	}
	var ws []tlogwitness.Witness
	var refs []*witnesstest.Witness
	for i := range 2 {
		ref, err := witnesstest.Start(ctx, fmt.Sprintf("bench.example/w%d", i), map[string]string{origin: vkey})
		if err != nil {
			return nil, err
		}
		defer ref.Close()
		w, err := tlogwitness.New(ref.URL, ref.Key)
		if err != nil {
			return nil, err
		}
		refs, ws = append(refs, ref), append(ws, w)
	}
	path := filepath.Join(dir, "witnessed", "ledger.jsonl")
	client := &tlogwitness.Client{Sleep: func(context.Context, time.Duration) error { return nil }}
	var before int64
	normal, after := 0, 0
	for run := range runs {
		for i := range 3 {
			d := ledger.Draft{Kind: ledger.KindRun, Run: fmt.Sprintf("%d-%d", run, i), Workflow: "bench", Time: time.Now().UTC()}
			if _, err := ledger.Append(path, d); err != nil {
				return nil, err
			}
		}
		_, head, err := ledger.ProveConsistency(path, origin, 0)
		if err != nil {
			return nil, err
		}
		signed, err := head.Sign(skey)
		if err != nil {
			return nil, err
		}
		refs[1].SetDown(run == runs/2) // witness 1 is down for one run
		prove := func(from int64) (tlog.TreeProof, error) {
			p, _, err := ledger.ProveConsistency(path, origin, from)
			return p, err
		}
		for i, r := range client.SubmitAll(ctx, ws, tlogwitness.Checkpoint{Signed: signed, Size: head.Size, Origin: origin}, before, prove) {
			switch {
			case i == 1 && run == runs/2:
				if r.Err == nil {
					return nil, fmt.Errorf("run %d: the witness that is down cosigned", run)
				}
			case r.Err != nil:
				return nil, fmt.Errorf("run %d: %w", run, r.Err)
			case i == 1 && run == runs/2+1:
				after = max(after, r.Requests)
			default:
				normal = max(normal, r.Requests)
			}
		}
		before = head.Size
	}
	return []row{
		{id: "P14", what: fmt.Sprintf("witness requests per commit-back per witness (%d runs, 2 reference witnesses)", runs),
			measured: fmt.Sprintf("at most %d; %d requests in all", normal, refs[0].Requests()+refs[1].Requests()),
			value:    fmt.Sprint(normal), goal: "≤ 2", ok: normal <= 2},
		{id: "P14", what: "the run after a witness was down (it names its size: 409, then the proof from there)",
			measured: fmt.Sprintf("%d requests", after), value: fmt.Sprint(after), goal: "≤ 2", ok: after <= 2},
	}, nil
}
