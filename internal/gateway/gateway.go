package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/provider"
)

// DefaultMaxBody bounds a request's body: Anthropic's own limit for a
// Messages request, above OpenAI's and Gemini's.
const DefaultMaxBody = 32 << 20

// Options are a Gateway's dependencies.
type Options struct {
	// Getenv reads optr's own environment: the real keys and the
	// endpoint variables (OPENAI_BASE_URL, AZURE_OPENAI_ENDPOINT, …).
	Getenv func(string) string
	// Meter charges every call and holds the run's caps; nil charges and
	// caps nothing.
	Meter *cost.Meter
	// Transport forwards requests upstream; nil is a transport of the
	// gateway's own (TLS with the system's roots, optr's proxy
	// environment, HTTP/2 where the upstream speaks it).
	Transport http.RoundTripper
	// MaxBody bounds a request's body (default DefaultMaxBody).
	MaxBody int64
	// Now is the clock of the records (default time.Now).
	Now func() time.Time
}

// Gateway is the model gateway of one run. It is safe for concurrent use.
type Gateway struct {
	opts  Options
	proxy *httputil.ReverseProxy

	mu     sync.Mutex
	grants map[digest]*grant // by the digest of a placeholder
	srv    *http.Server      // Listen's
	addr   string
}

// digest is a placeholder's SHA-256: the gateway looks keys up by it, so
// that no comparison with a placeholder can leak it by its timing.
type digest [sha256.Size]byte

// grant is one provider given to one agent: its placeholder's owner, how
// the provider is spoken, and where its calls go.
type grant struct {
	badge       *Badge
	fam         *family
	placeholder string
	up          upstream
}

// upstream is where a provider's calls go, and the real key they carry.
type upstream struct {
	base *url.URL
	key  string
}

// New returns the gateway of a run.
func New(opts Options) *Gateway {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Transport == nil {
		opts.Transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   256,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 10 * time.Minute,
			// The gateway reads what it forwards: no compression on the
			// way in, so a Content-Encoding never hides the usage.
			DisableCompression: true,
		}
	}
	g := &Gateway{opts: opts, grants: map[digest]*grant{}}
	g.proxy = &httputil.ReverseProxy{
		Rewrite:        rewrite,
		Transport:      opts.Transport,
		FlushInterval:  -1, // every chunk of a stream reaches the agent at once
		ModifyResponse: modifyResponse,
		ErrorHandler:   proxyError,
		BufferPool:     bufferPool{},
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	return g
}

// Wiring is what an agent's config says of its gateway.
type Wiring struct {
	// Providers are its gateway: list (Names).
	Providers []string
	// BaseURL and KeyEnv are its base-url and api-key-env, for an agent
	// of one provider: the upstream and the variable of the real key in
	// optr's environment, instead of the provider's.
	BaseURL, KeyEnv string
}

// ConfigError is a wiring the gateway cannot serve: an unknown provider,
// a key or an endpoint missing from optr's environment. It names the
// agent and what to set.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Enroll gives agent a placeholder for each provider w names, and returns
// its Badge. It fails, before the agent starts, when a provider is unknown
// or optr's environment holds no key or endpoint for it.
func (g *Gateway) Enroll(agent string, w Wiring) (*Badge, error) {
	if len(w.Providers) == 0 {
		return nil, &ConfigError{fmt.Errorf("agents.%s.gateway: name a provider (%s)", agent, strings.Join(provider.GatewayNames(), ", "))}
	}
	if (w.BaseURL != "" || w.KeyEnv != "") && len(w.Providers) > 1 {
		return nil, &ConfigError{fmt.Errorf("agents.%s: base-url and api-key-env apply to a gateway of one provider; this one has %s", agent, strings.Join(w.Providers, ", "))}
	}
	b := &Badge{g: g, agent: agent}
	for _, name := range w.Providers {
		fam, ok := familyOf(name)
		if !ok {
			return nil, &ConfigError{fmt.Errorf("agents.%s.gateway: %q is not a provider the gateway serves (%s)", agent, name, strings.Join(provider.GatewayNames(), ", "))}
		}
		up, err := g.upstream(agent, fam, w)
		if err != nil {
			return nil, &ConfigError{err}
		}
		b.grants = append(b.grants, &grant{badge: b, fam: fam, placeholder: placeholder(fam), up: up})
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gr := range b.grants {
		g.grants[sha256.Sum256([]byte(gr.placeholder))] = gr
	}
	return b, nil
}

// placeholder is a new key for one agent's calls to fam in this run:
// 130 random bits, in a form that says what it is.
func placeholder(fam *family) string {
	return "optr-gateway-" + fam.name + "-" + strings.ToLower(rand.Text())
}

// upstream resolves where fam's calls for agent go: base-url, else the
// provider's endpoint variable, else its default URL; the key from
// api-key-env, else the provider's key variables.
func (g *Gateway) upstream(agent string, fam *family, w Wiring) (upstream, error) {
	p, ok := provider.Lookup(fam.provider)
	if !ok {
		return upstream{}, fmt.Errorf("agents.%s.gateway: %s: the provider registry has no %s", agent, fam.name, fam.provider)
	}
	keyVars := p.KeyEnv
	if w.KeyEnv != "" {
		keyVars = []string{w.KeyEnv}
	}
	var key string
	for _, k := range keyVars {
		if key = g.opts.Getenv(k); key != "" {
			break
		}
	}
	if key == "" {
		return upstream{}, fmt.Errorf("agents.%s.gateway: %s needs its key in optr's environment: set %s (the agent gets a placeholder, never the key)", agent, fam.name, strings.Join(keyVars, " or "))
	}
	raw, from := w.BaseURL, "agents."+agent+".base-url"
	if raw == "" && p.BaseURLEnv != "" {
		raw, from = g.opts.Getenv(p.BaseURLEnv), p.BaseURLEnv
	}
	if raw == "" {
		raw, from = p.DefaultURL, p.Title+"'s API"
	}
	if raw == "" {
		return upstream{}, fmt.Errorf("agents.%s.gateway: %s needs an endpoint: set %s (such as %s)", agent, fam.name, p.BaseURLEnv, p.ExampleURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return upstream{}, fmt.Errorf("agents.%s.gateway: %s is %q, not an http(s) URL of the provider's API", agent, from, raw)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return upstream{}, fmt.Errorf("agents.%s.gateway: %s is %q: the gateway forwards keys over TLS only (https://), or to this machine (a local model server on localhost)", agent, from, raw)
	}
	u.RawQuery, u.Fragment = "", ""
	return upstream{base: u, key: key}, nil
}

// loopback reports whether host is this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// lookup returns the grant of the placeholder key, nil when the gateway
// gave none such.
func (g *Gateway) lookup(key string) *grant {
	if key == "" {
		return nil
	}
	d := sha256.Sum256([]byte(key))
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.grants[d]
}

// Placeholders returns every placeholder key the gateway gave: secrets
// optr hands out, for redaction (architecture §4.15).
func (g *Gateway) Placeholders() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.grants))
	for _, gr := range g.grants {
		out = append(out, gr.placeholder)
	}
	return out
}

// Listen serves the gateway on a loopback port of its own, for agents
// that run without the sandbox (sandbox.mode off), and returns its
// address. Those agents are known by their key alone. A second call
// returns the same address.
func (g *Gateway) Listen() (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		return g.addr, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("gateway: listen: %w", err)
	}
	g.srv = &http.Server{Handler: http.HandlerFunc(g.serveShared), ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	g.addr = ln.Addr().String()
	go func() { _ = g.srv.Serve(ln) }()
	return g.addr, nil
}

// Close stops Listen's listener and forgets every placeholder: a key of
// this run opens nothing afterwards.
func (g *Gateway) Close() error {
	g.mu.Lock()
	srv := g.srv
	g.srv, g.grants = nil, map[digest]*grant{}
	g.mu.Unlock()
	if srv == nil {
		return nil
	}
	if err := srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveShared serves Listen's listener: the agent is the one whose key
// the request carries, its call charged to its attempt running.
func (g *Gateway) serveShared(w http.ResponseWriter, r *http.Request) {
	gr := g.lookup(credential(r))
	if gr == nil {
		guessFamily(r).writeError(w, failUnknownKey, "this request carries no key optr gave; use the key in the agent's environment")
		return
	}
	t := gr.badge.running()
	if t == nil {
		gr.fam.writeError(w, failNotRunning, "agent "+gr.badge.agent+" has no attempt running")
		return
	}
	t.serve(w, r, gr)
}

// bufferPool lends ReverseProxy its copy buffers.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

// contextKey carries a call's state from serve to the ReverseProxy hooks.
type contextKey struct{}

func callOf(ctx context.Context) *callState {
	c, _ := ctx.Value(contextKey{}).(*callState)
	return c
}

// hostOf is the host name of an absolute URL, lower case; "" when raw is
// none.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
