package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	in := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Received: time.Now()}
	if json.Unmarshal(raw, &in.Body) == nil {
		in.Model, _ = in.Body["model"].(string)
		in.System, in.User = s.d.prompt(in.Body)
		in.Stream, _ = in.Body["stream"].(bool)
	}
	in.Stream = in.Stream || strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	rel, under := strings.CutPrefix(r.URL.Path, s.d.basePath())
	dep, routed := "", false
	if under {
		dep, routed = s.d.route(r, rel)
	}
	in.Deployment = dep
	id := s.record(in)

	if !routed {
		if lax, ok := s.d.(laxDialect); ok {
			// A path this server does not serve is answered as the real
			// server answers it, and is no test failure: the test is
			// what a client that speaks the wrong format meets.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, lax.notFound())
			return
		}
		s.t.Errorf("llmtest: %s fake: unexpected request %s %s (base path %s)", s.d.name(), r.Method, r.URL.Path, s.d.basePath())
		s.write(w, id, http.StatusNotFound, nil, s.d.failure(in, http.StatusNotFound, "", ""), false)
		return
	}
	s.mu.Lock()
	key := s.Key
	s.mu.Unlock()
	if status, msg := s.d.admit(r.Header, key); status != 0 {
		s.write(w, id, status, nil, s.d.failure(in, status, "", msg), false)
		return
	}
	s.serve(w, r, in, id, s.next())
}

// serve answers an admitted request with rep.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, in Request, id int, rep Reply) {
	if rep.Served != nil {
		close(rep.Served)
	}
	switch {
	case rep.Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case rep.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	case rep.Delay > 0:
		timer := time.NewTimer(rep.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	var body any
	switch {
	case rep.Body != "":
		body = json.RawMessage(rep.Body)
	case status >= 400:
		body = s.d.failure(in, status, rep.Code, rep.Text)
	default:
		usage := rep.Usage
		if usage == (agent.Usage{}) {
			usage = agent.Usage{InputTokens: int64(len(in.System)+len(in.User))/4 + 1, OutputTokens: int64(len(rep.Text)+len(rep.Refusal))/4 + 1}
		}
		if st, ok := s.d.(streamer); ok && in.Stream {
			s.writeStream(w, id, rep, st.stream(in, rep, id, usage))
			return
		}
		body = s.d.success(in, rep, id, usage)
		if m, ok := body.(map[string]any); ok && rep.NoUsage {
			delete(m, "usage")
			delete(m, "usageMetadata")
		}
	}
	s.write(w, id, status, rep.Headers, body, rep.Truncate)
}

func (s *Server) write(w http.ResponseWriter, id, status int, headers map[string]string, body any, truncate bool) {
	var b []byte
	if raw, ok := body.(json.RawMessage); ok {
		b = raw
	} else {
		var err error
		if b, err = json.Marshal(body); err != nil {
			s.t.Errorf("llmtest: %s fake: encode the answer: %v", s.d.name(), err)
		}
	}
	if truncate {
		b = b[:len(b)/2]
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(s.d.requestIDHeader(), fmt.Sprintf("req_%06d", id))
	for k, v := range headers {
		h.Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
