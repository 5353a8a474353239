package witnesstest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/witness/persistence/inmemory"
	refwitness "github.com/transparency-dev/witness/witness"
	"golang.org/x/mod/sumdb/note"
)

// Prefix is the witness's submission prefix below its server's root: a
// client that posts to the root fails.
const Prefix = "/witness/"

// Witness is a running reference witness.
type Witness struct {
	// URL is its submission prefix (add-checkpoint is below it).
	URL string
	// Key is its cosignature/v1 verifier key.
	Key string
	// Name is its key's name.
	Name string

	srv  *httptest.Server
	hits atomic.Int64
	down atomic.Bool
}

// Start starts a witness named name that witnesses the logs given as
// origin → the log's note verifier key.
func Start(ctx context.Context, name string, logs map[string]string) (*Witness, error) {
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, err
	}
	signer, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		return nil, err
	}
	key, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		return nil, err
	}
	verifiers := map[string]note.Verifier{}
	for origin, k := range logs {
		v, err := note.NewVerifier(k)
		if err != nil {
			return nil, fmt.Errorf("the key of log %s: %w", origin, err)
		}
		verifiers[origin] = v
	}
	w, err := refwitness.New(ctx, refwitness.Opts{
		Persistence: inmemory.New(),
		Signers:     []note.Signer{signer},
		VerifierForLog: func(_ context.Context, origin string) (note.Verifier, bool, error) {
			v, ok := verifiers[origin]
			return v, ok, nil
		},
	})
	if err != nil {
		return nil, err
	}
	h := refwitness.NewHTTPHandler(w)
	ws := &Witness{Key: key, Name: name}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+Prefix+"add-checkpoint", func(rw http.ResponseWriter, r *http.Request) {
		ws.hits.Add(1)
		if ws.down.Load() {
			rw.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		h.AddCheckpoint(rw, r)
	})
	ws.srv = httptest.NewServer(mux)
	ws.URL = ws.srv.URL + Prefix
	return ws, nil
}

// Close stops the server.
func (w *Witness) Close() { w.srv.Close() }

// Requests is how many add-checkpoint requests it received.
func (w *Witness) Requests() int64 { return w.hits.Load() }

// SetDown makes it answer 503 to every request (true) or work again.
func (w *Witness) SetDown(down bool) { w.down.Store(down) }
