package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/cost"
)

// credentialHeaders are the headers a client of any provider sends its
// key in; the gateway reads the placeholder from them and removes them
// all before it forwards a request (the query's key= as well).
var credentialHeaders = []string{"X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Authorization", "Proxy-Authorization"}

// credential is the key r carries: in a provider's key header, as a
// bearer token, or (Gemini) in the query.
func credential(r *http.Request) string {
	for _, h := range credentialHeaders[:3] {
		if v := r.Header.Get(h); v != "" {
			return v
		}
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(v)
	}
	return r.URL.Query().Get("key")
}

// callState is one call on its way through the gateway.
type callState struct {
	tab    *Tab
	gr     *grant
	api    api
	name   string
	stream bool
	model  string // the model asked for (an Azure deployment)
	target *url.URL

	start      time.Time
	headers    time.Time // when the upstream's response headers came
	status     int
	retryAfter string
	refused    string // why the gateway answered itself
	err        string // why the call failed on its way
	once       sync.Once
}

// serve forwards r, a call of t's attempt to gr's provider, and records
// it.
func (t *Tab) serve(w http.ResponseWriter, r *http.Request, gr *grant) {
	fam := gr.fam
	if !t.begin() {
		fam.writeError(w, failNotRunning, "the attempt this key was given to is over")
		return
	}
	defer t.flight.Done()
	g := t.b.g
	a, name, stream := apiOf(r.Method, r.URL.Path)
	c := &callState{tab: t, gr: gr, api: a, name: name, stream: stream, start: g.opts.Now()}
	defer c.finish(reading{}, true) // a call that ended before its answer did
	t.alive(0)

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			c.status = fam.writeError(w, failTooLarge, fmt.Sprintf("the request body is over the gateway's limit of %d bytes", g.opts.MaxBody))
			c.refused = fmt.Sprintf("the request body is over the gateway's limit of %d bytes", g.opts.MaxBody)
			return
		}
		c.err = "the agent's request body could not be read: " + err.Error()
		return
	}
	switch a {
	case apiGenerate:
		c.model = geminiModel(r.URL.Path)
	default:
		c.model = gjson.GetBytes(body, "model").String()
		c.stream = c.stream || gjson.GetBytes(body, "stream").Bool()
	}
	if c.model == "" {
		c.model = azureDeployment(r.URL.Path)
	}
	if a.call() {
		// A call that would pass a cap is refused before it is made: its
		// prompt alone (about 4 bytes a token) is what it would spend.
		est := g.opts.Meter.Pricer().Spend(cost.Rate{Provider: fam.provider, Model: c.model}, "",
			agent.Usage{InputTokens: int64(len(body))/4 + 1}, 1)
		if err := g.opts.Meter.Allow(est); err != nil {
			c.status = fam.writeError(w, failBudget, err.Error())
			c.refused = err.Error()
			t.refuse(err)
			return
		}
	}
	if a == apiChat && c.stream && name == "chat-completions" && streamOptionsAllowed(fam, r) {
		body = includeUsage(body)
	}
	c.target = target(gr, r.URL)
	out := r.WithContext(context.WithValue(r.Context(), contextKey{}, c))
	out.Body, out.ContentLength, out.GetBody = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
	out.Header.Del("Content-Length")
	g.proxy.ServeHTTP(w, out)
}

// refuse keeps the first refusal by the budget.
func (t *Tab) refuse(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.refused == nil {
		t.refused = fmt.Errorf("the model gateway refused a call: %w", err)
	}
}

// target is where a request for u goes: the upstream's base URL, then
// u's path below the family's base path, then u's query without a key.
func target(gr *grant, u *url.URL) *url.URL {
	rel := u.EscapedPath()
	if bp := gr.fam.basePath; bp != "" && (rel == bp || strings.HasPrefix(rel, bp+"/")) {
		rel = rel[len(bp):]
	}
	base := gr.up.base
	t, err := url.Parse(base.Scheme + "://" + base.Host + strings.TrimSuffix(base.EscapedPath(), "/") + rel)
	if err != nil { // base and path were both parsed once already
		t = &url.URL{Scheme: base.Scheme, Host: base.Host, Path: strings.TrimSuffix(base.Path, "/") + u.Path}
	}
	t.RawQuery = u.RawQuery
	if q := u.Query(); q.Has("key") {
		q.Del("key")
		t.RawQuery = q.Encode()
	}
	return t
}

// streamOptionsAllowed reports whether a Chat Completions stream of fam
// may be asked for its usage: OpenAI's always, Azure's from API version
// 2024-09-01 (and its v1 API, which has no version).
func streamOptionsAllowed(fam *family, r *http.Request) bool {
	if fam.name != Azure {
		return true
	}
	v := r.URL.Query().Get("api-version")
	return strings.Contains(r.URL.Path, "/openai/v1/") || v >= "2024-09-01" || v == "preview" || v == "latest"
}

// includeUsage asks a Chat Completions stream for its usage in its last
// chunk (stream_options.include_usage), which the gateway meters; a stream
// without it reports none. The agent gets that one chunk more, with no
// choices, as every client of the API knows it. The agent's other stream
// options are kept.
func includeUsage(body []byte) []byte {
	if v := gjson.GetBytes(body, "stream_options.include_usage"); v.Exists() {
		if v.Type == gjson.True || v.Index <= 0 {
			return body
		}
		return slicesReplace(body, v.Index, len(v.Raw), "true")
	}
	at, field := -1, `"include_usage":true`
	if opts := gjson.GetBytes(body, "stream_options"); opts.Exists() {
		if !opts.IsObject() || opts.Index <= 0 {
			return body // the provider refuses it as it is
		}
		at = opts.Index + 1
	} else if i := bytes.IndexByte(body, '{'); i >= 0 && gjson.ValidBytes(body) {
		at, field = i+1, `"stream_options":{"include_usage":true}`
	}
	if at < 0 {
		return body
	}
	if rest := bytes.TrimLeft(body[at:], " \t\r\n"); len(rest) == 0 || rest[0] != '}' {
		field += ","
	}
	return slicesReplace(body, at, 0, field)
}

// slicesReplace returns b with b[at:at+n] replaced by s.
func slicesReplace(b []byte, at, n int, s string) []byte {
	if at < 0 || at+n > len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:at]...)
	out = append(out, s...)
	return append(out, b[at+n:]...)
}

// rewrite is the ReverseProxy's: the call's target, the agent's keys
// removed, the real key put in.
func rewrite(pr *httputil.ProxyRequest) {
	c := callOf(pr.In.Context())
	out := pr.Out
	out.URL, out.Host = c.target, ""
	h := out.Header
	for _, k := range credentialHeaders {
		h.Del(k)
	}
	// The gateway reads what it forwards: an answer in plain bytes.
	h.Del("Accept-Encoding")
	fam, key := c.gr.fam, c.gr.up.key
	if fam.bearer {
		h.Set("Authorization", "Bearer "+key)
	} else {
		h.Set(fam.keyHeader, key)
	}
}

// modifyResponse is the ReverseProxy's: the answer's status and headers
// recorded, its body metered on its way to the agent.
func modifyResponse(resp *http.Response) error {
	c := callOf(resp.Request.Context())
	c.headers, c.status = c.tab.b.g.opts.Now(), resp.StatusCode
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		c.retryAfter = resp.Header.Get("Retry-After")
	}
	var m meterer
	if c.api.call() && resp.StatusCode/100 == 2 {
		m = newMeterer(c.api, resp.Header.Get("Content-Type"), c.stream)
	}
	resp.Body = &meteredBody{rc: resp.Body, m: m, c: c}
	return nil
}

// proxyError is the ReverseProxy's: the upstream could not be reached
// (or the agent went away first).
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	c := callOf(r.Context())
	if r.Context().Err() != nil {
		c.err = "the agent hung up before the answer came"
		return
	}
	c.err = fmt.Sprintf("could not reach %s: %v", c.target.Host, err)
	c.status = c.gr.fam.writeError(w, failUpstream, c.err)
}

// finish records the call once: what r read of its answer, truncated when
// the answer stopped before its end.
func (c *callState) finish(r reading, truncated bool) {
	c.once.Do(func() {
		t := c.tab
		g := t.b.g
		now := g.opts.Now()
		call := agent.Call{
			Provider: c.gr.fam.provider, API: c.name, Model: r.model, Status: c.status, Stream: c.stream,
			Start: c.start, DurationMS: now.Sub(c.start).Milliseconds(), RetryAfter: c.retryAfter,
		}
		if call.Model == "" {
			call.Model = c.model
		}
		if !c.headers.IsZero() {
			call.LatencyMS = c.headers.Sub(c.start).Milliseconds()
		}
		var spend cost.Spend
		if c.api.call() && c.status/100 == 2 {
			call.Truncated = truncated
			u := r.usage
			if !r.reported {
				u = agent.UnknownUsage // a model answered, and did not say what it used
			}
			spend = g.opts.Meter.Pricer().Spend(cost.Rate{Provider: c.gr.fam.provider, Model: c.model}, r.model, u, 1)
			call.Usage, call.CostUSD = u, spend.USDOrNil()
			g.opts.Meter.Charge(t.ctx, spend)
			if t.progress != nil && u.OutputTokens > 0 {
				t.progress(agent.Progress{Tokens: u.OutputTokens})
			}
		} else {
			zero := 0.0
			call.CostUSD = &zero
		}
		call.Refused, call.Error = c.refused, c.err
		t.record(call)
	})
}
