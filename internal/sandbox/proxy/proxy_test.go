package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolver answers from a table, like a DNS server the test controls.
type resolver map[string][]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// echoServer answers every connection with a line.
func echoServer(t *testing.T) (string, int) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "upstream saw %s %s", r.Method, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	return ap.String(), int(ap.Port())
}

// start serves a session for policy entries and returns its address.
func start(t *testing.T, entries []string, r Resolver) (*Session, string) {
	t.Helper()
	pol, err := NewPolicy(entries)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(pol, r).Serve(ln)
	t.Cleanup(func() { s.Close() })
	return s, ln.Addr().String()
}

// connect sends CONNECT target through the proxy and, when it is
// answered 200, a GET through the tunnel; it returns the status line and
// what came back.
func connect(t *testing.T, proxyAddr, target string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return resp.Status, string(b)
	}
	fmt.Fprintf(c, "GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	r2, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	return resp.Status, string(b)
}

func TestConnect(t *testing.T) {
	t.Parallel()
	up, port := echoServer(t)
	names := resolver{
		"api.example.com":    {netip.MustParseAddr("127.0.0.1")},
		"public.example.com": {netip.MustParseAddr("93.184.215.14")},
	}
	tests := []struct {
		name    string
		entries []string
		target  string
		status  string
		body    string
	}{
		{"a listed address and port", []string{up}, up, "200 Connection established", "upstream saw GET /through"},
		{"an address not listed", []string{"defaults-stand-in.example"}, up, "403 Forbidden",
			"sandbox: connect to " + up + " refused (IP address not in sandbox.network)\n"},
		{"a listed address on another port", []string{"127.0.0.1:1"}, up, "403 Forbidden",
			"sandbox: connect to " + up + " refused (IP address not in sandbox.network)\n"},
		{"a listed name that resolves to loopback", []string{fmt.Sprintf("api.example.com:%d", port)},
			fmt.Sprintf("api.example.com:%d", port), "403 Forbidden",
			fmt.Sprintf("sandbox: connect to api.example.com:%d refused (api.example.com resolves to 127.0.0.1, a private or loopback address not in sandbox.network)\n", port)},
		{"a listed name whose loopback address is listed too", []string{fmt.Sprintf("api.example.com:%d", port), up},
			fmt.Sprintf("api.example.com:%d", port), "200 Connection established", "upstream saw GET /through"},
		{"a listed name on another port", []string{"public.example.com"}, "public.example.com:22", "403 Forbidden",
			"sandbox: connect to public.example.com:22 refused (port 22 is not allowed for public.example.com in sandbox.network)\n"},
		{"a name not listed", []string{"public.example.com"}, "evil.example:443", "403 Forbidden",
			"sandbox: connect to evil.example:443 refused (not in sandbox.network)\n"},
		{"a wildcard does not cover the bare domain", []string{"*.example.com"}, "example.com:443", "403 Forbidden",
			"sandbox: connect to example.com:443 refused (not in sandbox.network)\n"},
		{"any host still refuses loopback", []string{"*"}, fmt.Sprintf("api.example.com:%d", port), "403 Forbidden",
			fmt.Sprintf("sandbox: connect to api.example.com:%d refused (port %d is not the default port of the request (sandbox.network \"*\" allows 443; list host:port for another))\n", port, port)},
		{"any host, default port, loopback name", []string{"*"}, "api.example.com:443", "403 Forbidden",
			"sandbox: connect to api.example.com:443 refused (api.example.com resolves to 127.0.0.1, a private or loopback address not in sandbox.network)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, addr := start(t, tt.entries, names)
			status, body := connect(t, addr, tt.target)
			if status != tt.status || body != tt.body {
				t.Errorf("got %q %q, want %q %q", status, body, tt.status, tt.body)
			}
			err := s.Refused()
			if refused := strings.HasPrefix(tt.status, "403"); refused != (err != nil) {
				t.Errorf("Refused() = %v", err)
			} else if err != nil && err.Error()+"\n" != tt.body {
				t.Errorf("Refused() = %q, want the answer's text", err)
			}
		})
	}
}

func TestRecordsEveryHost(t *testing.T) {
	t.Parallel()
	up, port := echoServer(t)
	s, addr := start(t, []string{up}, resolver{})
	for range 2 {
		connect(t, addr, up)
	}
	connect(t, addr, "evil.example:443")
	want := []Host{
		{Host: "127.0.0.1", Port: port, Allowed: true, Requests: 2},
		{Host: "evil.example", Port: 443, Requests: 1, Reason: "not in sandbox.network"},
	}
	if diff := cmp.Diff(want, s.Close()); diff != "" {
		t.Errorf("hosts (-want +got):\n%s", diff)
	}
}

func TestPlainHTTP(t *testing.T) {
	t.Parallel()
	up, _ := echoServer(t)
	_, addr := start(t, []string{up}, resolver{})
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, "http://"+addr))}}
	resp, err := client.Get("http://" + up + "/plain")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "upstream saw GET /plain" {
		t.Errorf("got %s %q", resp.Status, b)
	}
	resp, err = client.Get("http://evil.example/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("unlisted host: %s", resp.Status)
	}
}

// Hostile requests are answered or cut, and the proxy keeps serving.
func TestBadRequestsDoNotStopTheProxy(t *testing.T) {
	t.Parallel()
	up, _ := echoServer(t)
	_, addr := start(t, []string{up}, resolver{})
	send := func(raw string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() { _, _ = io.WriteString(c, raw) }()
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.TrimSpace(line)
	}
	huge := "CONNECT " + up + " HTTP/1.1\r\nX: " + strings.Repeat("a", 2*MaxHeaderBytes) + "\r\n\r\n"
	if got := send(huge); !strings.HasPrefix(got, "HTTP/1.1 431") {
		t.Errorf("absurd header: %q", got)
	}
	// A body that never ends, to a refused host: answered at once.
	endless := "POST http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("10\r\n0123456789abcdef\r\n", 1000)
	if got := send(endless); !strings.HasPrefix(got, "HTTP/1.1 403") {
		t.Errorf("endless body: %q", got)
	}
	for _, raw := range []string{"CONNECT :99999 HTTP/1.1\r\n\r\n", "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n", "\x00\x01garbage\r\n\r\n"} {
		if got := send(raw); !strings.HasPrefix(got, "HTTP/1.1 4") {
			t.Errorf("%q: %q", raw, got)
		}
	}
	if status, _ := connect(t, addr, up); status != "200 Connection established" {
		t.Fatalf("the proxy stopped serving: %s", status)
	}
}

func TestCloseEndsTunnels(t *testing.T) {
	t.Parallel()
	// An upstream that never answers: the tunnel stays open until Close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	s, addr := start(t, []string{ln.Addr().String()}, resolver{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", ln.Addr())
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("CONNECT: %q", line)
	}
	s.Close()
	if _, err := io.ReadAll(br); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Logf("read after close: %v", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Plain HTTP requests of many clients at once to one host reuse the
// proxy's upstream connections: as many as requests run at once, not one
// per request (a pool of 4 idle connections made 64 concurrent agents
// dial for nearly every request).
func TestForwardingReusesUpstreamConnections(t *testing.T) {
	t.Parallel()
	const clients, each = 16, 10
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	_, proxyAddr := start(t, []string{addr}, resolver{})
	pu, _ := url.Parse("http://" + proxyAddr)
	// Every client sends its first request once all are connected, and
	// the next one only after the previous answer: at most clients run at
	// once.
	var ready, done sync.WaitGroup
	ready.Add(clients)
	release := make(chan struct{})
	for range clients {
		done.Go(func() {
			c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
			ready.Done()
			<-release
			for range each {
				res, err := c.Get("http://" + addr + "/")
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
	ready.Wait()
	close(release)
	done.Wait()
	// A request that finds every connection busy dials, and may then be
	// served by one freed meanwhile (the new one joins the pool): a few
	// more than clients, not one per request.
	if n := conns.Load(); n > 2*clients {
		t.Errorf("the proxy opened %d upstream connections for %d clients × %d requests, want at most %d", n, clients, each, 2*clients)
	}
}

// A process that asks for more hosts than a record names — a million
// made-up names would grow optr's memory and the committed record without
// end — has the first MaxHosts named and the rest counted together in one
// OtherHosts entry, refused when any of them was; its first refusal is
// still the one that fails it.
func TestRecordNamesAtMostMaxHosts(t *testing.T) {
	t.Parallel()
	up, port := echoServer(t)
	s, addr := start(t, []string{up}, resolver{})
	for i := range MaxHosts - 1 {
		connect(t, addr, fmt.Sprintf("h%03d.example:443", i))
	}
	connect(t, addr, up) // the MaxHosts-th
	for i := range 3 {
		connect(t, addr, fmt.Sprintf("late%d.example:443", i))
	}
	connect(t, addr, up) // named already: counted by name
	got := s.Close()
	if len(got) != MaxHosts+1 {
		t.Fatalf("%d entries, want %d named and one for the rest", len(got), MaxHosts)
	}
	want := Host{Host: OtherHosts, Requests: 3, Reason: otherHostsReason}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("the entry for the rest (-want +got):\n%s", diff)
	}
	for _, h := range got {
		if strings.HasPrefix(h.Host, "late") {
			t.Errorf("%s is named, past the bound", h.Host)
		}
		if h.Host == "127.0.0.1" && (h.Requests != 2 || h.Port != port) {
			t.Errorf("the allowed host: %+v, want 2 requests", h)
		}
	}
	var re *RefusedError
	if err := s.Refused(); !errors.As(err, &re) || re.Host != "h000.example" {
		t.Errorf("Refused() = %v, want the first refusal, h000.example", err)
	}
}

// Merging records keeps the bound: the first record's hosts are named
// first, and every host past MaxHosts is counted with the records' own
// OtherHosts entries.
func TestMergeKeepsTheBound(t *testing.T) {
	t.Parallel()
	named := func(prefix string, n int, allowed bool) []Host {
		var hs []Host
		for i := range n {
			h := Host{Host: fmt.Sprintf("%s%03d.example", prefix, i), Port: 443, Allowed: allowed, Requests: 1}
			if !allowed {
				h.Reason = "not in sandbox.network"
			}
			hs = append(hs, h)
		}
		return hs
	}
	first := append(named("a", MaxHosts, true), Host{Host: OtherHosts, Allowed: true, Requests: 5, Reason: otherHostsReason})
	second := append(named("a", 2, true), named("b", 3, false)...)
	got := Merge(first, second)
	if len(got) != MaxHosts+1 {
		t.Fatalf("%d entries, want %d named and one for the rest", len(got), MaxHosts)
	}
	want := Host{Host: OtherHosts, Allowed: false, Requests: 8, Reason: otherHostsReason}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("the entry for the rest (-want +got):\n%s", diff)
	}
	if got[1].Host != "a000.example" || got[1].Requests != 2 {
		t.Errorf("a000: %+v, want its requests added up", got[1])
	}
}

// network.requests counts HTTP requests, not tunnels: the requests of a
// tunnel that carries plain HTTP (Gemini CLI tunnels its http:// base
// URL) one by one, a TLS tunnel, whose requests the proxy cannot see, as a
// tunnel.
func TestRequestsAreHTTPRequestsNotTunnels(t *testing.T) {
	t.Parallel()
	up, port := echoServer(t)
	var signs atomic.Int64
	pol, err := NewPolicy([]string{up})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(pol, resolver{}).ServeWith(ln, func() { signs.Add(1) })

	// Three requests on one tunnel, kept alive between them.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", up, up)
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	for i := range 3 {
		fmt.Fprintf(c, "GET /n%d HTTP/1.1\r\nHost: %s\r\n\r\n", i, up)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("upstream saw GET /n%d", i); string(b) != want {
			t.Fatalf("request %d through the tunnel: %q, want %q", i, b, want)
		}
	}
	c.Close()

	// A TLS tunnel: its first byte is a handshake record.
	tlsUp := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls") }))
	t.Cleanup(tlsUp.Close)
	pol2, _ := NewPolicy([]string{tlsUp.Listener.Addr().String()})
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	s2 := New(pol2, resolver{}).Serve(ln2)
	client := tlsUp.Client()
	client.Transport.(*http.Transport).Proxy = http.ProxyURL(mustURL(t, "http://"+ln2.Addr().String()))
	for range 2 {
		resp, err := client.Get(tlsUp.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "tls" {
			t.Fatalf("through the TLS tunnel: %q", b)
		}
	}
	client.CloseIdleConnections()

	if diff := cmp.Diff([]Host{{Host: "127.0.0.1", Port: port, Allowed: true, Requests: 3}}, s.Close()); diff != "" {
		t.Errorf("plain tunnel (-want +got):\n%s", diff)
	}
	tlsPort := tlsUp.Listener.Addr().(*net.TCPAddr).Port
	if diff := cmp.Diff([]Host{{Host: "127.0.0.1", Port: tlsPort, Allowed: true, Tunnels: 1}}, s2.Close()); diff != "" {
		t.Errorf("TLS tunnel (-want +got):\n%s", diff)
	}
	if signs.Load() < 4 {
		t.Errorf("traffic heard %d signs of life for 3 requests and their answers", signs.Load())
	}
}

// A streamed answer reaches the client as it is written, event by
// event, through a plain HTTP request and a tunnel alike: the upstream
// writes its second event only once the client has read the first.
func TestStreamedAnswersAreFlushed(t *testing.T) {
	t.Parallel()
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "data: two\n\n")
	}))
	t.Cleanup(srv.Close)
	_, addr := start(t, []string{srv.Listener.Addr().String()}, resolver{})
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, "http://"+addr))}}
	resp, err := client.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "data: one\n" {
		t.Fatalf("first event: %q %v", line, err)
	}
	close(next)
	rest, _ := io.ReadAll(br)
	if string(rest) != "\ndata: two\n\n" {
		t.Fatalf("the rest: %q", rest)
	}
}
