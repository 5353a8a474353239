package tlogwitness

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// pipeListener is a net.Listener whose connections are net.Pipe pairs: in
// a synctest bubble, HTTP over it blocks durably (real sockets do not), so
// the bubble's clock moves while a witness keeps a request waiting.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.UnixAddr{Name: "pipe", Net: "pipe"} }

// dial connects to the listener, for http.Transport.DialContext.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestAWitnessThatNeverAnswers: a witness that accepts the request and
// never answers costs a run at most MaxRequests requests of Timeout each
// (20 s unless set) and a wait of a second before each retry, then a
// warning naming it — never a run that hangs.
func TestAWitnessThatNeverAnswers(t *testing.T) {
	key := newLogKey(t, origin)
	rw := newRefWitness(t, "witness.example/slow", map[string]logKey{origin: key})
	rw.Close()
	l := newTestLedger(t, key)
	l.grow(t, 3)
	cp, prove := l.checkpoint(t)
	synctest.Test(t, func(t *testing.T) {
		lis := newPipeListener()
		var got int
		var mu sync.Mutex
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got++
			mu.Unlock()
			io.Copy(io.Discard, r.Body) // then the server sees the client hang up
			<-r.Context().Done()
		})}
		go srv.Serve(lis)
		hc := &http.Client{Transport: &http.Transport{DialContext: lis.dial}}
		c := &Client{HTTP: hc}
		start := time.Now()
		res := c.Submit(t.Context(), rw.witness(t), cp, 0, prove)
		took := time.Since(start)
		if !errors.Is(res.Err, ErrUnreachable) || res.Requests != MaxRequests || !strings.Contains(res.Err.Error(), "witness.example/slow") {
			t.Errorf("Submit = %+v, want ErrUnreachable naming the witness after %d requests", res, MaxRequests)
		}
		if want := MaxRequests*20*time.Second + (MaxRequests-1)*time.Second; took != want {
			t.Errorf("the witness cost %v, want %v", took, want)
		}
		hc.CloseIdleConnections()
		srv.Close()
		synctest.Wait()
		if got != MaxRequests {
			t.Errorf("the witness got %d requests, want %d", got, MaxRequests)
		}
	})
}
