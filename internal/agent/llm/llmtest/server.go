package llmtest

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server is a fake provider API. Configure a client with URL (the base URL
// including the base path) and Key, or pass Getenv and Client to llm.New.
type Server struct {
	// URL is the base URL to configure: base-url, OPENAI_BASE_URL,
	// ANTHROPIC_BASE_URL or AZURE_OPENAI_ENDPOINT.
	URL string
	// Key is the only credential the server accepts.
	Key string

	t      testing.TB
	srv    *httptest.Server
	d      dialect
	done   chan struct{}
	mu     sync.Mutex
	script []Reply
	def    Reply
	reqs   []Request
}

// newServer starts a fake for d; tls serves HTTPS (Azure's SDK sends keys
// only over HTTPS).
func newServer(t testing.TB, d dialect, tls bool) *Server {
	t.Helper()
	s := &Server{
		Key:  "test-" + d.name() + "-" + rand.Text(),
		t:    t,
		d:    d,
		done: make(chan struct{}),
		def:  Reply{Text: Answer("ok", 1000)},
	}
	if tls {
		s.srv = httptest.NewTLSServer(s)
	} else {
		s.srv = httptest.NewServer(s)
	}
	s.URL = s.srv.URL + d.basePath()
	// Cleanups run last-registered first: check the script, release
	// hanging handlers, then close the server.
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.done) })
	t.Cleanup(s.checkScript)
	return s
}

// SetKey makes key the only credential the server accepts, in place of
// the random one it starts with: for a client whose key is fixed, such as
// the docs' "sk-...". Call it while the server may take requests (from
// another process) rather than assigning Key, which the handler reads.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Key = key
}

// Script appends replies to the script; they are served in order, one per
// admitted request, before the default reply.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// SetDefault sets the reply served once the script is used up (initially a
// well-formed answer with output "ok").
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// Requests returns every request received so far, refused ones included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Client returns an HTTP client that trusts the server (needed for the
// Azure fake, which serves HTTPS).
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Env returns the environment a client of this provider reads: the key and
// base-URL variables pointing at the fake.
func (s *Server) Env() map[string]string {
	keyVar, urlVar := s.d.env()
	return map[string]string{keyVar: s.Key, urlVar: s.URL}
}

// Getenv looks name up in Env; it fits llm.Options.Getenv.
func (s *Server) Getenv(name string) string { return s.Env()[name] }

func (s *Server) checkScript() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.script); n > 0 {
		s.t.Errorf("llmtest: %s fake: %d scripted replies were never requested; the next was %+v", s.d.name(), n, s.script[0])
	}
}

// record stores in and returns the request's sequence number.
func (s *Server) record(in Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, in)
	return len(s.reqs)
}

// next takes the next scripted reply, else the default.
func (s *Server) next() Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return s.def
	}
	r := s.script[0]
	s.script = s.script[1:]
	return r
}
