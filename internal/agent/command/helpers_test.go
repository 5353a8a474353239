package command

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

// testPath is the PATH scripts run with: the test controls it, not the environment.
const testPath = "/usr/local/bin:/usr/bin:/bin"

// script writes an sh script into a new temporary directory and returns its
// path. Tests run scripts through sh rather than exec them directly, which
// keeps parallel tests clear of ETXTBSY (a script still open for writing in
// a concurrently forked child).
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newAgent builds a command agent with a controlled environment and a quiet logger.
func newAgent(t *testing.T, cfg config.Agent, opts Options) *Agent {
	t.Helper()
	cfg.Provider = config.ProviderCommand
	if opts.Environ == nil {
		opts.Environ = []string{"PATH=" + testPath, "LC_ALL=C"}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	a, err := New("scripted", cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// syncBuffer is a bytes.Buffer for writers on several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// progressLog records Progress reports from several goroutines.
type progressLog struct {
	mu     sync.Mutex
	bytes  int
	frames []string
	calls  int
}

func (p *progressLog) report(pr agent.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	p.bytes += pr.Bytes
	if pr.Frame != "" {
		p.frames = append(p.frames, pr.Frame)
	}
}

// asAgentError returns err's *agent.Error or fails the test.
func asAgentError(t *testing.T, err error) *agent.Error {
	t.Helper()
	e, ok := err.(*agent.Error)
	if !ok {
		t.Fatalf("error %v (%T) is not an *agent.Error", err, err)
	}
	return e
}
