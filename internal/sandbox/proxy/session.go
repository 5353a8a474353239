package proxy

import (
	"cmp"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
)

// Host is one host:port a process asked the proxy for: what
// agent-outputs/<agent>.json records under "network".
type Host struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Allowed  bool   `json:"allowed"`
	Requests int    `json:"requests"`
	// Reason says why it was refused.
	Reason string `json:"reason,omitempty"`
}

// Session is the proxy serving one sandboxed process's listener.
type Session struct {
	p   *Proxy
	srv *serverState

	mu      sync.Mutex
	hosts   map[string]*Host
	refused *Host
	conns   map[net.Conn]struct{}
	closed  bool
}

// record counts one request for host:port.
func (s *Session) record(host string, port int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]*Host{}
	}
	k := net.JoinHostPort(host, strconv.Itoa(port))
	h, ok := s.hosts[k]
	if !ok {
		h = &Host{Host: host, Port: port, Allowed: reason == "", Reason: reason}
		s.hosts[k] = h
	}
	h.Requests++
	if reason != "" {
		h.Allowed, h.Reason = false, reason
		if s.refused == nil {
			s.refused = h
		}
	}
}

// track keeps a hijacked connection to close with the session; false when
// the session is closed already.
func (s *Session) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Session) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close stops serving: the listener and every connection through it are
// closed. It returns what the session recorded, by host then port.
func (s *Session) Close() []Host {
	s.srv.close()
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	out := make([]Host, 0, len(s.hosts))
	for _, h := range s.hosts {
		out = append(out, *h)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Host) int { return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.Port, b.Port)) })
	return out
}

// Refused returns the first refusal as the failure it makes of the
// process, nil when nothing was refused.
func (s *Session) Refused() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused == nil {
		return nil
	}
	return &RefusedError{Host: s.refused.Host, Port: s.refused.Port, Reason: s.refused.Reason}
}

// RefusedError is a connection the proxy refused.
type RefusedError struct {
	Host   string
	Port   int
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("sandbox: connect to %s refused (%s)", net.JoinHostPort(e.Host, strconv.Itoa(e.Port)), e.Reason)
}

// Merge adds the records of more to hosts: requests add up, a refusal
// stays a refusal. The result is sorted like Session.Close's.
func Merge(hosts, more []Host) []Host {
	if len(more) == 0 {
		return hosts
	}
	out := slices.Clone(hosts)
	for _, m := range more {
		i := slices.IndexFunc(out, func(h Host) bool { return h.Host == m.Host && h.Port == m.Port })
		if i < 0 {
			out = append(out, m)
			continue
		}
		out[i].Requests += m.Requests
		if !m.Allowed {
			out[i].Allowed, out[i].Reason = false, m.Reason
		}
	}
	slices.SortFunc(out, func(a, b Host) int { return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.Port, b.Port)) })
	return out
}
