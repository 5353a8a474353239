package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits of one request.
const (
	// MaxHeaderBytes bounds a request's header block.
	MaxHeaderBytes = 64 << 10
	// MaxBody bounds a plain HTTP request body forwarded upstream.
	MaxBody = 256 << 20
	// headerTimeout bounds the time a client takes to send its headers.
	headerTimeout = 30 * time.Second
	// dialTimeout bounds resolving and connecting upstream.
	dialTimeout = 30 * time.Second
)

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Proxy is the egress proxy of one run: its policy, and how it reaches
// the world.
type Proxy struct {
	policy    Policy
	resolver  Resolver
	dialer    net.Dialer
	transport *http.Transport
}

// New returns a proxy that lets through what policy allows. A nil
// resolver is net.DefaultResolver.
func New(policy Policy, resolver Resolver) *Proxy {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	p := &Proxy{policy: policy, resolver: resolver, dialer: net.Dialer{Timeout: dialTimeout}}
	p.transport = &http.Transport{
		Proxy: nil, // never chain through optr's own proxy settings
		// The address was checked by allow; it travels in the context so
		// the connection goes exactly where the policy said yes.
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			addrs, _ := ctx.Value(checkedKey{}).([]netip.AddrPort)
			return p.dial(ctx, addrs)
		},
		ForceAttemptHTTP2: false,
		// As many as agents may send at once (executor.max-parallel is
		// at most 256): with fewer, concurrent agents talking to one host
		// dial it anew for nearly every request.
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
		DisableCompression:    true,
	}
	return p
}

type checkedKey struct{}

// Serve serves ln, one sandboxed process's listener, until the returned
// Session is closed.
func (p *Proxy) Serve(ln net.Listener) *Session { return p.ServeWith(ln, nil) }

// ServeWith is Serve with traffic, when not nil, told of every request
// and every piece of data an answer or a tunnel carries: the process's
// signs of life (a watcher's, architecture §4.14). It may be called from
// several goroutines.
func (p *Proxy) ServeWith(ln net.Listener, traffic func()) *Session {
	return p.ServeLocal(ln, traffic, nil)
}

// ServeLocal is ServeWith whose requests for the session's own address —
// in origin form (a client that dialled it directly, as NO_PROXY's
// loopback entries make it), in absolute form, or through a CONNECT that
// names it — are served by local, in process, never forwarded (the model
// gateway, architecture §4.18). So what is served there knows which
// process asked by the session it came through, and the process needs no
// address but its proxy's. They are not in the session's record of hosts.
func (p *Proxy) ServeLocal(ln net.Listener, traffic func(), local http.Handler) *Session {
	s := &Session{p: p, traffic: traffic, local: local}
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		s.port = a.Port
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: headerTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	s.srv = &serverState{srv: srv, done: make(chan struct{})}
	go func() {
		defer close(s.srv.done)
		_ = srv.Serve(ln)
	}()
	return s
}

// serverState is a Session's HTTP server.
type serverState struct {
	srv  *http.Server
	done chan struct{}
	once sync.Once
}

func (st *serverState) close() {
	st.once.Do(func() {
		_ = st.srv.Close()
		<-st.done
	})
}

func (s *Session) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		s.connect(w, r)
	case s.local != nil && r.URL.Host == "" && !r.URL.IsAbs():
		s.local.ServeHTTP(w, r) // origin form: sent to this address itself
	default:
		s.forward(w, r)
	}
}

// self reports whether host:port is the session's own address, which
// local serves: its port on a loopback address (in the process's network
// namespace nothing else listens there; outside one, Landlock lets it
// connect to that port alone).
func (s *Session) self(host string, port int) bool {
	if s.local == nil || port != s.port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}

// serveLocal serves r, a request in absolute form for the session's own
// address, with local, as the origin-form request it stands for.
func (s *Session) serveLocal(w http.ResponseWriter, r *http.Request) {
	in := r.Clone(r.Context())
	in.URL = &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	in.Header.Del("Proxy-Authorization")
	in.Header.Del("Proxy-Connection")
	s.local.ServeHTTP(w, in)
}

// localTunnel serves the plain HTTP a client sends through a CONNECT to
// the session's own address with local, request by request; a TLS
// handshake there is closed (what local serves speaks plain HTTP).
func (s *Session) localTunnel(client net.Conn, br *bufio.Reader) {
	if first, err := br.Peek(1); err != nil || first[0] == tlsHandshake {
		client.Close()
		return
	}
	serveConn(client, br, s.local)
}

// serveConn serves the HTTP requests on one connection, whose first bytes
// br read already, with h, bounded as the proxy bounds its own.
func serveConn(c net.Conn, br *bufio.Reader, h http.Handler) {
	ln := newConnListener(&readerConn{Conn: c, r: br})
	srv := &http.Server{
		Handler:           h,
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: headerTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				ln.Close()
			}
		},
	}
	_ = srv.Serve(ln)
}

// allow checks host:port for a request whose default port is def and
// returns the addresses to dial, or why not.
func (p *Proxy) allow(ctx context.Context, host string, port, def int) ([]netip.AddrPort, string) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		if !p.policy.addrListed(a, port, def) {
			return nil, "IP address not in sandbox.network"
		}
		return []netip.AddrPort{netip.AddrPortFrom(a.Unmap(), uint16(port))}, ""
	}
	if host == "" || strings.ContainsAny(host, "/ \\%") {
		return nil, "not a host name"
	}
	if reason := p.policy.nameAllowed(host, port, def); reason != "" {
		return nil, reason
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	addrs, err := p.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Sprintf("cannot resolve %s: %v", host, err)
	}
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap()
		if internal(a) && !p.policy.addrListed(a, port, def) {
			return nil, fmt.Sprintf("%s resolves to %s, a private or loopback address not in sandbox.network", host, a)
		}
		out = append(out, netip.AddrPortFrom(a, uint16(port)))
	}
	return out, ""
}

// dial connects to the first of addrs that answers.
func (p *Proxy) dial(ctx context.Context, addrs []netip.AddrPort) (net.Conn, error) {
	if len(addrs) == 0 {
		return nil, errors.New("proxy: no checked address to dial")
	}
	var errs []error
	for _, a := range addrs {
		c, err := p.dialer.DialContext(ctx, "tcp", a.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// splitTarget reads "host:port", def when the port is missing.
func splitTarget(hostport string, def int) (string, int, bool) {
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Contains(hostport, ":") && !strings.HasPrefix(hostport, "[") {
			return "", 0, false
		}
		return strings.Trim(hostport, "[]"), def, hostport != ""
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, false
	}
	return host, port, true
}

// refuse answers a refused request and records it.
func (s *Session) refuse(w http.ResponseWriter, host string, port int, reason string) {
	s.record(host, port, reason)
	w.Header().Set("Connection", "close")
	http.Error(w, (&RefusedError{Host: host, Port: port, Reason: reason}).Error(), http.StatusForbidden)
}

// connect opens a tunnel for CONNECT host:port.
func (s *Session) connect(w http.ResponseWriter, r *http.Request) {
	host, port, ok := splitTarget(r.Host, httpsPort)
	if !ok {
		http.Error(w, "sandbox: bad CONNECT target", http.StatusBadRequest)
		return
	}
	if s.self(host, port) {
		// Gemini CLI tunnels its http:// base URL, the gateway's.
		client, br, ok := s.hijack(w)
		if !ok {
			return
		}
		defer s.untrack(client)
		s.localTunnel(client, br)
		return
	}
	addrs, reason := s.p.allow(r.Context(), host, port, httpsPort)
	if reason != "" {
		s.refuse(w, host, port, reason)
		return
	}
	up, err := s.p.dial(r.Context(), addrs)
	if err != nil {
		s.count(host, port, "", 0, 0)
		http.Error(w, "sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	client, br, ok := s.hijack(w)
	if !ok {
		up.Close()
		return
	}
	defer s.untrack(client)
	// What the client sends first tells a TLS tunnel, whose requests the
	// proxy cannot see, from plain HTTP (Gemini CLI tunnels its http://
	// base URL), which it serves request by request: network.requests
	// counts HTTP requests, not tunnels.
	first, err := br.Peek(1)
	switch {
	case err != nil:
		s.count(host, port, "", 0, 0)
		client.Close()
		up.Close()
	case first[0] != tlsHandshake:
		// Its requests are forwarded one by one, over connections of the
		// proxy's pool (to the addresses checked), not this one.
		up.Close()
		s.plainTunnel(client, br, host, port, addrs)
	default:
		s.tunnel(host, port)
		s.pipe(client, br, up)
	}
}

// hijack takes a CONNECT's connection over, tracked by the session, and
// tells the client its tunnel is open; false when that failed (the
// connection is closed).
func (s *Session) hijack(w http.ResponseWriter) (net.Conn, *bufio.Reader, bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "sandbox: cannot tunnel", http.StatusInternalServerError)
		return nil, nil, false
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		return nil, nil, false
	}
	if !s.track(client) {
		client.Close()
		return nil, nil, false
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		s.untrack(client)
		client.Close()
		return nil, nil, false
	}
	return client, buf.Reader, true
}

// tlsHandshake is the first byte of a TLS connection: a handshake record.
const tlsHandshake = 0x16

// pipe copies both ways until either side ends, then closes both.
func (s *Session) pipe(client net.Conn, fromClient io.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(alivenessWriter{up, s}, fromClient); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(alivenessWriter{client, s}, up); closeWrite(client); done <- struct{}{} }()
	<-done
	<-done
	client.Close()
	up.Close()
}

// plainTunnel serves the plain HTTP a client sends through its tunnel to
// host:port: every request bounded as the proxy bounds its own, counted,
// and forwarded to addrs, the addresses allow checked.
func (s *Session) plainTunnel(client net.Conn, br *bufio.Reader, host string, port int, addrs []netip.AddrPort) {
	serveConn(client, br, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := *r.URL
		target.Scheme, target.Host = "http", net.JoinHostPort(host, strconv.Itoa(port))
		s.record(host, port, "")
		s.send(w, r, &target, addrs)
	}))
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		c.Close()
	}
}

// hopHeaders are dropped when forwarding (RFC 9110 §7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends a plain HTTP request in absolute form upstream.
func (s *Session) forward(w http.ResponseWriter, r *http.Request) {
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "sandbox: this is a proxy; send absolute http:// URLs, or CONNECT for https", http.StatusBadRequest)
		return
	}
	host, port, ok := splitTarget(r.URL.Host, httpPort)
	if !ok {
		http.Error(w, "sandbox: bad host", http.StatusBadRequest)
		return
	}
	if s.self(host, port) {
		s.serveLocal(w, r)
		return
	}
	addrs, reason := s.p.allow(r.Context(), host, port, httpPort)
	if reason != "" {
		s.refuse(w, host, port, reason)
		return
	}
	s.record(host, port, "")
	s.send(w, r, r.URL, addrs)
}

// send forwards r to target, dialling addrs, and streams the answer back:
// each piece flushed as it comes, so a model's streamed answer reaches the
// agent as it is written.
func (s *Session) send(w http.ResponseWriter, r *http.Request, target *url.URL, addrs []netip.AddrPort) {
	out := r.Clone(context.WithValue(r.Context(), checkedKey{}, addrs))
	out.URL = target
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if r.Body != nil {
		out.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	}
	resp, err := s.p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, "sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			s.alive()
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
