package tlogwitness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness/witnesstest"
)

const origin = "optr/octo/repo"

// logKey is the ledger's signing key pair, as `optr ledger keygen` makes it.
type logKey struct{ skey, vkey string }

func newLogKey(t *testing.T, name string) logKey {
	t.Helper()
	skey, vkey, err := ledger.GenerateKey(name)
	if err != nil {
		t.Fatal(err)
	}
	return logKey{skey, vkey}
}

// refWitness is transparency-dev/witness's reference witness, in process
// (witnesstest), witnessing the logs given by origin and key.
type refWitness struct {
	*witnesstest.Witness
	vkey string
}

func newRefWitness(t *testing.T, name string, logs map[string]logKey) *refWitness {
	t.Helper()
	keys := map[string]string{}
	for origin, k := range logs {
		keys[origin] = k.vkey
	}
	w, err := witnesstest.Start(t.Context(), name, keys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return &refWitness{Witness: w, vkey: w.Key}
}

func (rw *refWitness) witness(t *testing.T) Witness {
	t.Helper()
	w, err := New(rw.URL, rw.vkey)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (rw *refWitness) requests() int { return int(rw.Requests()) }

// testLedger is a ledger on disk, grown entry by entry.
type testLedger struct {
	path string
	key  logKey
	n    int
}

func newTestLedger(t *testing.T, key logKey) *testLedger {
	return &testLedger{path: filepath.Join(t.TempDir(), "ledger.jsonl"), key: key}
}

func (l *testLedger) grow(t *testing.T, entries int) {
	t.Helper()
	for range entries {
		l.n++
		d := ledger.Draft{Kind: ledger.KindRun, Run: fmt.Sprintf("%d-1", l.n), Workflow: "issue-1",
			Time: time.Date(2026, 8, 1, 0, 0, l.n, 0, time.UTC), Fields: map[string]any{"selected": "a"}}
		if _, err := ledger.Append(l.path, d); err != nil {
			t.Fatal(err)
		}
	}
}

// checkpoint is the ledger's head, signed, and its prover.
func (l *testLedger) checkpoint(t *testing.T) (Checkpoint, Prover) {
	t.Helper()
	_, head, err := ledger.ProveConsistency(l.path, origin, 0)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := head.Sign(l.key.skey)
	if err != nil {
		t.Fatal(err)
	}
	prove := func(from int64) (tlog.TreeProof, error) {
		p, _, err := ledger.ProveConsistency(l.path, origin, from)
		return p, err
	}
	return Checkpoint{Signed: signed, Size: head.Size, Origin: origin}, prove
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestTheReferenceWitnessCosigns: the reference witness cosigns the first
// checkpoint it sees, then each later one whose consistency proof from the
// last it cosigned verifies, one request each; the cosigned checkpoint
// names it (and not a witness of another key); a stale old size costs one
// more request (409 names the witness's size); a checkpoint older than
// the witness's is not cosigned again.
func TestTheReferenceWitnessCosigns(t *testing.T) {
	key := newLogKey(t, origin)
	rw := newRefWitness(t, "witness.example/w1", map[string]logKey{origin: key})
	w := rw.witness(t)
	c := &Client{Sleep: noSleep}
	l := newTestLedger(t, key)

	sizes := []int{3, 1, 40, 7}
	var prev int64
	var first Checkpoint
	for i, n := range sizes {
		l.grow(t, n)
		cp, prove := l.checkpoint(t)
		if i == 0 {
			first = cp
		}
		res := c.Submit(t.Context(), w, cp, prev, prove)
		if res.Err != nil || res.Requests != 1 || len(res.Cosignatures) != 1 {
			t.Fatalf("submission %d (size %d from %d): %+v", i, cp.Size, prev, res)
		}
		cosigned := Cosigned(cp.Signed, []Result{res})
		names, err := Cosigners(cosigned, []string{w.Key}, 1)
		if err != nil || len(names) != 1 || names[0] != "witness.example/w1" {
			t.Fatalf("Cosigners of submission %d = %v, %v", i, names, err)
		}
		if _, _, err := ledger.OpenCheckpoint(cosigned, key.vkey); err != nil {
			t.Fatalf("the cosigned checkpoint no longer opens with the ledger's key: %v", err)
		}
		prev = cp.Size
	}
	if got := rw.requests(); got != len(sizes) {
		t.Fatalf("the witness got %d requests for %d checkpoints", got, len(sizes))
	}

	// A stale old size: the witness names its own, and the second request
	// carries the proof from there.
	l.grow(t, 5)
	cp, prove := l.checkpoint(t)
	res := c.Submit(t.Context(), w, cp, 4, prove)
	if res.Err != nil || res.Requests != 2 || len(res.Cosignatures) != 1 {
		t.Fatalf("from a stale size: %+v", res)
	}

	// The first checkpoint again: the witness is ahead.
	res = c.Submit(t.Context(), w, first, first.Size, prove)
	if !errors.Is(res.Err, ErrAhead) || res.Requests != 1 || !strings.Contains(res.Err.Error(), "witness.example/w1") {
		t.Fatalf("an old checkpoint: %+v", res)
	}

	// Another witness's key does not count.
	other := newRefWitness(t, "witness.example/w2", map[string]logKey{origin: key})
	_, err := Cosigners(Cosigned(cp.Signed, []Result{res}), []string{other.vkey}, 1)
	var qe *QuorumError
	if !errors.As(err, &qe) || !strings.Contains(err.Error(), "witness.example/w2") {
		t.Fatalf("Cosigners with another witness's key = %v, want a *QuorumError naming it", err)
	}
}

// TestTheReferenceWitnessRefuses: a rewritten ledger (same origin and
// key, another history) is refused as inconsistent (422), at the same size
// or larger, and a checkpoint signed by a key the witness does not trust
// is not cosigned; each is named, and a refusal is not retried.
func TestTheReferenceWitnessRefuses(t *testing.T) {
	key := newLogKey(t, origin)
	rw := newRefWitness(t, "witness.example/w1", map[string]logKey{origin: key})
	w := rw.witness(t)
	c := &Client{Sleep: noSleep}

	honest := newTestLedger(t, key)
	honest.grow(t, 6)
	cp, prove := honest.checkpoint(t)
	if res := c.Submit(t.Context(), w, cp, 0, prove); res.Err != nil {
		t.Fatal(res.Err)
	}

	// The same origin, rewritten from entry 1: its own proofs are
	// consistent with itself, not with what the witness saw.
	forked := newTestLedger(t, key)
	forked.n = 100 // other runs, other hashes
	forked.grow(t, 6)
	fcp, fprove := forked.checkpoint(t)
	if res := c.Submit(t.Context(), w, fcp, 6, fprove); !errors.Is(res.Err, ErrInconsistent) || res.Requests != 1 || !strings.Contains(res.Err.Error(), "different checkpoint of size 6") {
		t.Errorf("a fork of the same size: %+v", res)
	}
	forked.grow(t, 3)
	fcp, fprove = forked.checkpoint(t)
	if res := c.Submit(t.Context(), w, fcp, 6, fprove); !errors.Is(res.Err, ErrInconsistent) || res.Requests != 1 || !strings.Contains(res.Err.Error(), "from size 6") {
		t.Errorf("a rewritten ledger: %+v", res)
	}
	if got := rw.requests(); got != 3 {
		t.Errorf("the witness got %d requests, want 3: a refusal is not retried", got)
	}

	// A key the witness does not trust (another key of the same name).
	// The spec says 403; this reference witness answers 500, which is
	// retried as a server error; either way nothing is cosigned.
	stranger := newTestLedger(t, newLogKey(t, origin))
	stranger.grow(t, 7)
	scp, sprove := stranger.checkpoint(t)
	if res := c.Submit(t.Context(), w, scp, 6, sprove); res.Err == nil || len(res.Cosignatures) != 0 || res.Requests > MaxRequests {
		t.Errorf("a checkpoint signed by an untrusted key: %+v", res)
	}
}

// TestRefusalsAsTheSpecWordsThem: each status C2SP tlog-witness gives a
// refusal is named for what it means, without a retry; server errors and
// 429 are retried, within MaxRequests. The witness here answers exactly
// the status given (the reference witness's own refusals are tested
// above).
func TestRefusalsAsTheSpecWordsThem(t *testing.T) {
	key := newLogKey(t, origin)
	l := newTestLedger(t, key)
	l.grow(t, 3)
	cp, prove := l.checkpoint(t)
	wkey := newRefWitness(t, "witness.example/w1", nil).vkey
	for _, tc := range []struct {
		status   int
		ctype    string
		body     string
		want     error
		requests int
		says     string
	}{
		{http.StatusNotFound, "", "", ErrUnknownLog, 1, "does not witness the log optr/octo/repo"},
		{http.StatusForbidden, "", "", ErrUntrustedKey, 1, "public key"},
		{http.StatusBadRequest, "text/plain", "old size too big\n", ErrRefused, 1, "old size too big"},
		{http.StatusConflict, "text/plain", "3\n", ErrRefused, 1, "without its size"},
		{http.StatusConflict, sizeType, "9\n", ErrAhead, 1, "cosigned size 9"},
		{http.StatusTooManyRequests, "", "", ErrUnreachable, MaxRequests, "429"},
		{http.StatusBadGateway, "", "", ErrUnreachable, MaxRequests, "502"},
		{http.StatusTeapot, "", "", ErrRefused, 1, "418"},
	} {
		var hits int
		srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
			hits++
			if tc.ctype != "" {
				wr.Header().Set("Content-Type", tc.ctype)
			}
			wr.WriteHeader(tc.status)
			fmt.Fprint(wr, tc.body)
		}))
		w, err := New(srv.URL, wkey)
		if err != nil {
			t.Fatal(err)
		}
		res := (&Client{HTTP: srv.Client(), Sleep: noSleep}).Submit(t.Context(), w, cp, 0, prove)
		srv.Close()
		if !errors.Is(res.Err, tc.want) || res.Requests != tc.requests || hits != tc.requests || !strings.Contains(res.Err.Error(), tc.says) {
			t.Errorf("%d %s: %d request(s), %v; want %d, %v saying %q", tc.status, tc.ctype, hits, res.Err, tc.requests, tc.want, tc.says)
		}
	}
}

// TestAWitnessThatIsDown: a witness that does not answer costs at most
// MaxRequests requests, with a wait between them, and ends in
// ErrUnreachable naming it; the other witness still cosigns.
func TestAWitnessThatIsDown(t *testing.T) {
	key := newLogKey(t, origin)
	up := newRefWitness(t, "witness.example/up", map[string]logKey{origin: key})
	down := newRefWitness(t, "witness.example/down", map[string]logKey{origin: key})
	down.Close()
	var waits []time.Duration
	var mu sync.Mutex
	c := &Client{Sleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}}
	l := newTestLedger(t, key)
	l.grow(t, 4)
	cp, prove := l.checkpoint(t)
	results := c.SubmitAll(t.Context(), []Witness{up.witness(t), down.witness(t)}, cp, 0, prove)
	if results[0].Err != nil || len(results[0].Cosignatures) != 1 {
		t.Fatalf("the witness that is up: %+v", results[0])
	}
	r := results[1]
	if !errors.Is(r.Err, ErrUnreachable) || r.Requests != MaxRequests || !strings.Contains(r.Err.Error(), "witness.example/down") {
		t.Fatalf("the witness that is down: %+v", r)
	}
	if len(waits) != MaxRequests-1 {
		t.Errorf("waits %v, want one before each retry", waits)
	}
	cosigned := Cosigned(cp.Signed, results)
	if names, err := Cosigners(cosigned, []string{up.vkey, down.vkey}, 1); err != nil || len(names) != 1 {
		t.Errorf("Cosigners(quorum 1) = %v, %v", names, err)
	}
	if _, err := Cosigners(cosigned, []string{up.vkey, down.vkey}, 2); err == nil || !strings.Contains(err.Error(), "only witness.example/up") {
		t.Errorf("Cosigners(quorum 2) = %v, want a refusal naming the one cosigner", err)
	}
}

// TestAnswersThatAreNotCosignatures: a 200 answer must carry a
// cosignature by the witness's own key; signature lines by another key,
// a forged signature, or no signature lines are refused, as is an answer
// longer than any cosignature.
func TestAnswersThatAreNotCosignatures(t *testing.T) {
	key := newLogKey(t, origin)
	rw := newRefWitness(t, "witness.example/w1", map[string]logKey{origin: key})
	impostor := newRefWitness(t, "witness.example/w1", map[string]logKey{origin: key}) // same name, another key
	l := newTestLedger(t, key)
	l.grow(t, 3)
	cp, prove := l.checkpoint(t)
	c := &Client{Sleep: noSleep}
	genuine := c.Submit(t.Context(), impostor.witness(t), cp, 0, prove)
	if genuine.Err != nil {
		t.Fatal(genuine.Err)
	}
	line := Cosigned(nil, []Result{genuine})
	forged := []byte(strings.Replace(string(line), "/", "+", 1))
	for name, answer := range map[string][]byte{
		"another key's":  line,
		"forged":         forged,
		"no signature":   []byte("ok\n"),
		"far too long":   []byte("— " + strings.Repeat("A", maxAnswer) + "\n"),
		"empty":          nil,
		"not terminated": line[:len(line)-1],
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) { wr.Write(answer) }))
		w, err := New(srv.URL, rw.vkey)
		if err != nil {
			t.Fatal(err)
		}
		res := c.Submit(t.Context(), w, cp, 0, prove)
		srv.Close()
		if res.Err == nil || len(res.Cosignatures) != 0 {
			t.Errorf("%s answer: %+v", name, res)
		}
	}
}

// A witness that redirects is refused without following: the host it
// names (here a reference witness that would cosign) gets no request, and
// nothing it could answer reaches the message. A client whose own
// CheckRedirect would follow is held to the same.
func TestRedirectsAreNotFollowed(t *testing.T) {
	key := newLogKey(t, origin)
	l := newTestLedger(t, key)
	l.grow(t, 3)
	cp, prove := l.checkpoint(t)
	elsewhere := newRefWitness(t, "witness.example/elsewhere", map[string]logKey{origin: key})
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var hits int
		srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
			hits++
			http.Redirect(wr, r, elsewhere.URL+"/add-checkpoint", status)
		}))
		w, err := New(srv.URL, elsewhere.vkey)
		if err != nil {
			t.Fatal(err)
		}
		follows := srv.Client()
		follows.CheckRedirect = func(*http.Request, []*http.Request) error { return nil }
		res := (&Client{HTTP: follows, Sleep: noSleep}).Submit(t.Context(), w, cp, 0, prove)
		srv.Close()
		if !errors.Is(res.Err, ErrRefused) || hits != 1 || len(res.Cosignatures) != 0 ||
			!strings.Contains(res.Err.Error(), "follows no redirect") || !strings.Contains(res.Err.Error(), elsewhere.URL) {
			t.Errorf("%d: %d request(s), %d cosignature(s), %v; want one request refused, naming where it pointed", status, hits, len(res.Cosignatures), res.Err)
		}
	}
	if got := elsewhere.requests(); got != 0 {
		t.Errorf("the host the redirects named got %d request(s); want none", got)
	}
}
