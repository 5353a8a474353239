package proxy

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Host is one host:port a process asked the proxy for: what
// agent-outputs/<agent>.json records under "network". What the seccomp
// layer refused is recorded so too (Session.Refuse): a direct connection
// by its address, a Unix socket as "unix:/path" or "unix:@name" and a
// signal as "pid:N" or "pgid:N", with port 0.
type Host struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Allowed bool   `json:"allowed"`
	// Requests counts the HTTP requests for the host: those sent to the
	// proxy (a refused CONNECT included) and those inside a tunnel that
	// carried plain HTTP.
	Requests int `json:"requests"`
	// Tunnels counts the TLS tunnels (CONNECT) opened to the host, whose
	// requests the proxy cannot see.
	Tunnels int `json:"tunnels,omitempty"`
	// Reason says why it was refused; for the entry of OtherHosts, which
	// hosts it counts.
	Reason string `json:"reason,omitempty"`
}

// MaxHosts bounds the host:port pairs a record names one by one; the
// requests to any other are counted together in one entry whose Host is
// OtherHosts (port 0), refused when any of them was. A process asking for
// a million names must not grow optr's memory, or the committed record,
// without end.
const MaxHosts = 256

// OtherHosts is the Host of the entry that counts the hosts past MaxHosts.
const OtherHosts = "*"

// otherHostsReason is the Reason of the OtherHosts entry.
var otherHostsReason = fmt.Sprintf("the requests to every host past the first %d, counted together", MaxHosts)

// Session is the proxy serving one sandboxed process's listener.
type Session struct {
	p   *Proxy
	srv *serverState
	// traffic, when set, hears every request and every piece of an
	// answer or a tunnel's data: signs of life of the process.
	traffic func()
	// local, when set, serves the requests for the session's own
	// address (port, on loopback): optr's model gateway.
	local http.Handler
	port  int

	mu      sync.Mutex
	hosts   map[string]*Host
	other   Host // the requests past MaxHosts (OtherHosts)
	refused *Host
	conns   map[net.Conn]struct{}
	closed  bool
}

// record counts one request for host:port.
func (s *Session) record(host string, port int, reason string) { s.count(host, port, reason, 1, 0) }

// tunnel counts one TLS tunnel to host:port.
func (s *Session) tunnel(host string, port int) { s.count(host, port, "", 0, 1) }

// count adds requests and tunnels to host:port's entry.
func (s *Session) count(host string, port int, reason string, requests, tunnels int) {
	s.alive()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]*Host{}
	}
	if reason != "" && s.refused == nil {
		s.refused = &Host{Host: host, Port: port, Reason: reason}
	}
	k := net.JoinHostPort(host, strconv.Itoa(port))
	h, ok := s.hosts[k]
	switch {
	case !ok && len(s.hosts) == MaxHosts:
		if s.other.Host == "" {
			s.other = Host{Host: OtherHosts, Allowed: true, Reason: otherHostsReason}
		}
		s.other.Requests += requests
		s.other.Tunnels += tunnels
		s.other.Allowed = s.other.Allowed && reason == ""
		return
	case !ok:
		h = &Host{Host: host, Port: port, Allowed: true}
		s.hosts[k] = h
	}
	h.Requests += requests
	h.Tunnels += tunnels
	if reason != "" {
		h.Allowed, h.Reason = false, reason
	}
}

// alive reports a sign of life of the process.
func (s *Session) alive() {
	if s.traffic != nil {
		s.traffic()
	}
}

// alivenessWriter reports every write through it as a sign of life.
type alivenessWriter struct {
	w io.Writer
	s *Session
}

func (a alivenessWriter) Write(p []byte) (int, error) {
	a.s.alive()
	return a.w.Write(p)
}

// Refuse records a refusal made elsewhere than in the proxy — by the
// seccomp layer, of a connection that did not go through the proxy (host
// and port), a Unix socket (host "unix:…", port 0) or a signal — as a
// request refused for reason.
func (s *Session) Refuse(host string, port int, reason string) { s.record(host, port, reason) }

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
	out := make([]Host, 0, len(s.hosts)+1)
	for _, h := range s.hosts {
		out = append(out, *h)
	}
	if s.other.Host != "" {
		out = append(out, s.other)
	}
	s.mu.Unlock()
	sortHosts(out)
	return out
}

// sortHosts sorts a record by host, then port.
func sortHosts(hosts []Host) {
	slices.SortFunc(hosts, func(a, b Host) int { return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.Port, b.Port)) })
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
	target, verb := e.Host, "connect to"
	switch {
	case e.Port > 0:
		target = net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	case strings.HasPrefix(e.Host, "pid:"), strings.HasPrefix(e.Host, "pgid:"):
		verb = "signal to"
	}
	return fmt.Sprintf("sandbox: %s %s refused (%s)", verb, target, e.Reason)
}

// Merge adds the records of more to hosts: requests add up, a refusal
// stays a refusal, and the hosts past MaxHosts, those of hosts first, are
// counted together as a session counts them. The result is sorted like
// Session.Close's.
func Merge(hosts, more []Host) []Host {
	if len(more) == 0 {
		return hosts
	}
	out := make([]Host, 0, len(hosts)+len(more))
	at := map[string]int{} // a named host:port's place in out
	other := -1            // the OtherHosts entry's
	for _, m := range slices.Concat(hosts, more) {
		if m.Host != OtherHosts {
			k := net.JoinHostPort(m.Host, strconv.Itoa(m.Port))
			if i, ok := at[k]; ok {
				out[i].Requests += m.Requests
				out[i].Tunnels += m.Tunnels
				if !m.Allowed {
					out[i].Allowed, out[i].Reason = false, m.Reason
				}
				continue
			}
			if len(at) < MaxHosts {
				at[k] = len(out)
				out = append(out, m)
				continue
			}
		}
		if other < 0 {
			other, out = len(out), append(out, Host{Host: OtherHosts, Allowed: true, Reason: otherHostsReason})
		}
		out[other].Requests += m.Requests
		out[other].Tunnels += m.Tunnels
		out[other].Allowed = out[other].Allowed && m.Allowed
	}
	sortHosts(out)
	return out
}
