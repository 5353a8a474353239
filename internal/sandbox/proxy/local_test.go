package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// localEcho serves a session whose own address is served by a handler
// that says what it got, and returns the session and its address.
func localEcho(t *testing.T) (*Session, string) {
	t.Helper()
	pol, err := NewPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	local := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "local saw %s %s?%s host=%q abs=%v proxy-auth=%q", r.Method, r.URL.Path, r.URL.RawQuery, r.URL.Host, r.URL.IsAbs(), r.Header.Get("Proxy-Authorization"))
	})
	s := New(pol, resolver{}).ServeLocal(ln, nil, local)
	t.Cleanup(func() { s.Close() })
	return s, ln.Addr().String()
}

// TestLocal: a request for the session's own address reaches the local
// handler in every form a client sends it — directly (origin form, as
// NO_PROXY's loopback entries make clients do), through the proxy in
// absolute form (Claude Code, Codex CLI), through a CONNECT tunnel (Gemini
// CLI) — as an origin-form request, and none of them is in the record of
// hosts; a loopback port that is not the session's is refused as before.
func TestLocal(t *testing.T) {
	t.Parallel()
	s, addr := localEcho(t)
	_, port, _ := net.SplitHostPort(addr)
	want := `local saw POST /v1/messages?beta=true host="" abs=false proxy-auth=""`

	// Origin form: the client dialled the address itself.
	resp, err := http.Post("http://"+addr+"/v1/messages?beta=true", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != want {
		t.Errorf("origin form: %s", b)
	}
	resp.Body.Close()

	// Absolute form through the proxy, under each loopback name.
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		// net/http never proxies a loopback host: the request is written
		// as a client that obeys HTTP_PROXY for it writes it.
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST http://%s:%s/v1/messages?beta=true HTTP/1.1\r\nHost: %s:%s\r\nProxy-Authorization: Basic eDp5\r\nContent-Length: 2\r\n\r\n{}", host, port, host, port)
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != want {
			t.Errorf("absolute form for %s: %s", host, b)
		}
		c.Close()
	}

	// CONNECT to the address, then plain HTTP in the tunnel: three
	// requests on one connection.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT 127.0.0.1:%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", port, port)
	br := bufio.NewReader(c)
	if r, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || r.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", r, err)
	}
	for range 3 {
		fmt.Fprintf(c, "POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Length: 2\r\n\r\n{}", port)
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != want {
			t.Errorf("in the tunnel: %s", b)
		}
		r.Body.Close()
	}

	// Another loopback port is no address of the session's: refused.
	other := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, "http://"+addr))}}
	r, err := other.Get("http://example.test:1/")
	if err != nil || r.StatusCode != http.StatusForbidden {
		t.Errorf("another host: %v %v", r, err)
	}
	if r != nil {
		r.Body.Close()
	}
	hosts := s.Close()
	if len(hosts) != 1 || hosts[0].Host != "example.test" {
		t.Errorf("the record = %+v; want only the refused host, none of the local requests", hosts)
	}
}

// TestLocalTLSClosed: a TLS handshake through a CONNECT to the session's
// own address is closed: what is served there speaks plain HTTP.
func TestLocalTLSClosed(t *testing.T) {
	t.Parallel()
	_, addr := localEcho(t)
	_, port, _ := net.SplitHostPort(addr)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT localhost:%s HTTP/1.1\r\nHost: localhost:%s\r\n\r\n", port, port)
	br := bufio.NewReader(c)
	if r, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || r.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", r, err)
	}
	if _, err := c.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05}); err != nil {
		t.Fatal(err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after a TLS handshake: %v, want the connection closed", err)
	}
}

// TestNoLocal: without a local handler, the session's own address is a
// loopback host like any other, refused unless listed.
func TestNoLocal(t *testing.T) {
	t.Parallel()
	s, addr := start(t, nil, resolver{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || r.StatusCode != http.StatusForbidden {
		t.Errorf("got %v %v; want it refused", r, err)
	}
	if hosts := s.Close(); len(hosts) != 1 || hosts[0].Allowed {
		t.Errorf("record %+v", hosts)
	}
}
