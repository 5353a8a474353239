package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/gateway"
)

// prices are the test's price list: every model the fakes are asked for.
var prices = map[string]config.Price{
	"claude-sonnet-4-5": {Input: 3, Output: 15},
	"gpt-4.1":           {Input: 2, Output: 8},
	"gemini-2.5-flash":  {Input: 0.3, Output: 2.5},
	"my-deployment":     {Input: 2, Output: 8},
}

// rig is one agent's attempt at a gateway in front of a fake provider:
// the attempt's own address (as its proxy session serves it), its
// environment, and what it was told.
type rig struct {
	fake  *llmtest.Server
	g     *gateway.Gateway
	meter *cost.Meter
	badge *gateway.Badge
	tab   *gateway.Tab
	addr  string
	env   map[string]string

	mu    sync.Mutex
	alive agent.Progress // the sum of what progress was told
}

// newRig starts fake, a gateway whose environment points provider name
// at it, and one attempt of agent "a" given that provider.
func newRig(t *testing.T, name string, fake *llmtest.Server, caps ...cost.Cap) *rig {
	t.Helper()
	r := &rig{fake: fake, meter: cost.NewMeter(cost.NewPricer(prices, nil), caps...)}
	env := fake.Env()
	r.g = gateway.New(gateway.Options{Getenv: func(k string) string { return env[k] }, Meter: r.meter, Transport: fake.Client().Transport})
	t.Cleanup(func() { _ = r.g.Close() })
	var err error
	if r.badge, err = r.g.Enroll("a", gateway.Wiring{Providers: []string{name}}); err != nil {
		t.Fatal(err)
	}
	r.tab = r.badge.Open(t.Context(), r.progress)
	srv := httptest.NewServer(r.tab)
	t.Cleanup(srv.Close)
	r.addr = strings.TrimPrefix(srv.URL, "http://")
	r.env = map[string]string{}
	for _, kv := range r.tab.Env(r.addr) {
		k, v, _ := strings.Cut(kv, "=")
		r.env[k] = v
	}
	return r
}

func (r *rig) progress(p agent.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.alive.Bytes += p.Bytes
	r.alive.Tokens += p.Tokens
}

// told is what progress was told so far.
func (r *rig) told() agent.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.alive
}

// close ends the attempt and returns its record.
func (r *rig) close() gateway.Record { return r.tab.Close() }

// checkUpstream fails the test unless every request the fake received
// carried the real key and none the placeholder.
func (r *rig) checkUpstream(t *testing.T) {
	t.Helper()
	placeholders := r.badge.Placeholders()
	for _, in := range r.fake.Requests() {
		for k, vs := range in.Header {
			for _, v := range vs {
				for _, p := range placeholders {
					if strings.Contains(v, p) {
						t.Errorf("the provider received the placeholder in %s", k)
					}
				}
			}
		}
		if strings.Contains(in.Query.Encode(), "optr-gateway") {
			t.Errorf("the provider received the placeholder in the query %q", in.Query.Encode())
		}
	}
}

// header makes a header from pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}
