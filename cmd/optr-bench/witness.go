package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/witness/persistence/inmemory"
	refwitness "github.com/transparency-dev/witness/witness"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness"
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
	logV, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	var ws []tlogwitness.Witness
	var up [2]atomic.Bool
	var hits [2]atomic.Int64
	for i := range 2 {
		wskey, wvkey, err := note.GenerateKey(rand.Reader, fmt.Sprintf("bench.example/w%d", i))
		if err != nil {
			return nil, err
		}
		signer, err := fnote.NewSignerForCosignatureV1(wskey)
		if err != nil {
			return nil, err
		}
		w, err := refwitness.New(ctx, refwitness.Opts{
			Persistence: inmemory.New(), Signers: []note.Signer{signer},
			VerifierForLog: func(_ context.Context, o string) (note.Verifier, bool, error) { return logV, o == origin, nil },
		})
		if err != nil {
			return nil, err
		}
		h := refwitness.NewHTTPHandler(w)
		up[i].Store(true)
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			if !up[i].Load() {
				rw.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			h.AddCheckpoint(rw, r)
		}))
		defer srv.Close()
		key, err := fnote.VKeyToCosignatureV1(wvkey)
		if err != nil {
			return nil, err
		}
		tw, err := tlogwitness.New(srv.URL, key)
		if err != nil {
			return nil, err
		}
		ws = append(ws, tw)
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
		up[1].Store(run != runs/2) // witness 1 is down for one run
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
			measured: fmt.Sprintf("at most %d; %d requests in all", normal, hits[0].Load()+hits[1].Load()),
			value:    fmt.Sprint(normal), goal: "≤ 2", ok: normal <= 2},
		{id: "P14", what: "the run after a witness was down (it names its size: 409, then the proof from there)",
			measured: fmt.Sprintf("%d requests", after), value: fmt.Sprint(after), goal: "≤ 2", ok: after <= 2},
	}, nil
}
