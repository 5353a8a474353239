package fieldtest

import (
	"bytes"
	"net"
	"sync/atomic"
	"testing"
)

// A Counter is a listener standing where an adversary must not reach,
// counting what reached it: connections, or datagrams that carry a
// secret.
type Counter struct {
	// Addr is where it listens: host:port, a Unix socket's path, or
	// "@name" for an abstract one.
	Addr  string
	n     atomic.Int64
	close func() error
}

// N is how many connections or datagrams reached it.
func (c *Counter) N() int64 { return c.n.Load() }

// Reset counts from zero again.
func (c *Counter) Reset() { c.n.Store(0) }

// Close stops listening (the test's cleanup does it too).
func (c *Counter) Close() { _ = c.close() }

// ListenConns counts the connections to addr on network ("tcp": addr may
// name port 0; "unix": a path, or "@name" for an abstract socket), each
// closed at once.
func ListenConns(t testing.TB, network, addr string) *Counter {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &Counter{Addr: addr, close: ln.Close}
	if network == "tcp" {
		c.Addr = ln.Addr().String()
	}
	t.Cleanup(c.Close)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.n.Add(1)
			conn.Close()
		}
	}()
	return c
}

// ListenPackets counts the UDP datagrams to a loopback port that carry
// secret ("" counts every one).
func ListenPackets(t testing.TB, secret string) *Counter {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Counter{Addr: pc.LocalAddr().String(), close: pc.Close}
	t.Cleanup(c.Close)
	go func() {
		buf := make([]byte, 512)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if bytes.Contains(buf[:n], []byte(secret)) {
				c.n.Add(1)
			}
		}
	}()
	return c
}
