package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

// TestSentOnceTheProcessStarted: an attempt calls Request.Sent once its
// process runs, not when it ends: the agent never ends by itself, and
// Sent stops it. Without the call the attempt would end only at its
// timeout, which fails the test.
func TestSentOnceTheProcessStarted(t *testing.T) {
	t.Parallel()
	a := newAgent(t, config.Agent{
		Run:     []string{"sh", script(t, "exec tail -f /dev/null\n")},
		Timeout: config.Duration(20 * time.Second),
	}, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var calls atomic.Int32
	_, err := a.Run(ctx, agent.Request{Intent: "wait", Dir: t.TempDir(), Sent: func() {
		calls.Add(1)
		cancel()
	}})
	if n := calls.Load(); n != 1 {
		t.Fatalf("Sent was called %d times while the process ran, want once (Run: %v)", n, err)
	}
	if err == nil || ctx.Err() == nil {
		t.Errorf("Run: %v, want the attempt stopped by its cancelled context", err)
	}
}
