package proxy

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Default ports when an entry names none.
const (
	httpsPort = 443
	httpPort  = 80
)

// Policy is the hosts a sandboxed process may reach.
type Policy struct {
	any   bool
	names map[string][]int // exact names; nil ports = the defaults
	wild  map[string][]int // "*.example.com" as "example.com"
	addrs map[netip.Addr][]int
}

// NewPolicy reads host entries as sandbox.network writes them, named sets
// already expanded: "*" (any host), "api.example.com", "*.example.com",
// "host:port", an IP address or "[v6]:port". A bad entry is an error.
func NewPolicy(entries []string) (Policy, error) {
	p := Policy{names: map[string][]int{}, wild: map[string][]int{}, addrs: map[netip.Addr][]int{}}
	for _, e := range entries {
		if e == "*" {
			p.any = true
			continue
		}
		host, port := e, 0
		if h, ps, err := net.SplitHostPort(e); err == nil {
			n, err := strconv.Atoi(ps)
			if err != nil || n < 1 || n > 65535 {
				return Policy{}, fmt.Errorf("sandbox.network: %q has a bad port", e)
			}
			host, port = h, n
		}
		host = strings.ToLower(strings.TrimSuffix(host, "."))
		add := func(m map[string][]int, k string) {
			if port == 0 {
				m[k] = append(m[k], 0)
			} else {
				m[k] = append(m[k], port)
			}
		}
		if a, err := netip.ParseAddr(host); err == nil {
			a = a.Unmap()
			if port == 0 {
				p.addrs[a] = append(p.addrs[a], 0)
			} else {
				p.addrs[a] = append(p.addrs[a], port)
			}
			continue
		}
		if host == "" {
			return Policy{}, fmt.Errorf("sandbox.network: %q names no host", e)
		}
		if w, ok := strings.CutPrefix(host, "*."); ok {
			add(p.wild, w)
			continue
		}
		add(p.names, host)
	}
	return p, nil
}

// Any reports whether every host is allowed ("*").
func (p Policy) Any() bool { return p.any }

// portOK reports whether port may be used with an entry's ports; 0 in
// ports stands for the default port of the request's kind.
func portOK(ports []int, port, def int) bool {
	return slices.Contains(ports, port) || (port == def && slices.Contains(ports, 0))
}

// nameAllowed says whether host:port is listed by name ("" when it is).
func (p Policy) nameAllowed(host string, port, def int) string {
	ports, ok := p.names[host]
	if !ok {
		for suffix, ws := range p.wild {
			if strings.HasSuffix(host, "."+suffix) {
				ports, ok = append(ports, ws...), true
			}
		}
	}
	switch {
	case ok && portOK(ports, port, def):
		return ""
	case ok:
		return fmt.Sprintf("port %d is not allowed for %s in sandbox.network", port, host)
	case p.any && port == def:
		return ""
	case p.any:
		return fmt.Sprintf("port %d is not the default port of the request (sandbox.network \"*\" allows %d; list host:port for another)", port, def)
	}
	return "not in sandbox.network"
}

// addrListed reports whether the address a is listed for port.
func (p Policy) addrListed(a netip.Addr, port, def int) bool {
	ports, ok := p.addrs[a.Unmap()]
	return ok && portOK(ports, port, def)
}

// internal reports whether a is an address a proxy on this machine must
// not be steered to unless it is listed: loopback, private, link-local
// (cloud metadata), unspecified, multicast.
func internal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a) // carrier-grade NAT, shared address space
}
