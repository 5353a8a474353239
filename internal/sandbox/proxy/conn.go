package proxy

import (
	"bufio"
	"net"
	"sync"
)

// readerConn is a connection whose first bytes were read into r already.
type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// connListener hands an http.Server one connection, then blocks until
// it is closed: how a tunnel's plain HTTP is served.
type connListener struct {
	conn chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func newConnListener(c net.Conn) *connListener {
	l := &connListener{conn: make(chan net.Conn, 1), done: make(chan struct{}), addr: c.LocalAddr()}
	l.conn <- c
	return l
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conn:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }
