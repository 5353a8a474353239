package llm_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// TestSentOnceTheRequestIsWritten: an attempt calls Request.Sent once its
// request is written, while the provider has not answered yet: the fake
// holds the request and never answers. Without the call the attempt
// would end only at its attempt-timeout, which fails the test.
func TestSentOnceTheRequestIsWritten(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			served := make(chan struct{})
			fake.Script(llmtest.Reply{Hang: true, Served: served})
			cfg := p.cfg
			cfg.AttemptTimeout = config.Duration(time.Minute)
			a := newAgent(t, fake, cfg)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var calls atomic.Int32
			sent, done := make(chan struct{}), make(chan error, 1)
			go func() {
				_, err := a.Run(ctx, agent.Request{Intent: "wait", Sent: func() {
					if calls.Add(1) == 1 {
						close(sent)
					}
				}})
				done <- err
			}()
			<-served
			select {
			case <-sent:
			case err := <-done:
				t.Fatalf("the attempt ended (%v) without calling Sent while the provider held its request", err)
			}
			cancel()
			if err := <-done; err == nil {
				t.Error("Run succeeded, want the cancelled attempt's error")
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("Sent was called %d times, want once", n)
			}
		})
	}
}
