package gateway

import (
	"strings"

	"github.com/optr-dev/optr/internal/provider"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// Direct counts the requests in hosts (an attempt's egress record) that
// went to a model API past the gateway: to a provider's host that the
// sandbox let through because sandbox.network lists it — an agent that
// set its own base URL. Their use is unknown (architecture §4.18).
func (g *Gateway) Direct(hosts []proxy.Host) int64 {
	model := g.modelHosts()
	var n int64
	for _, h := range hosts {
		if h.Allowed && model[strings.ToLower(h.Host)] {
			n += max(int64(h.Requests), 1)
		}
	}
	return n
}

// modelHosts are the hosts of the model APIs optr knows: every LLM
// provider's (its default URL's, or its endpoint variable's in optr's
// environment) and every upstream the gateway forwards to.
func (g *Gateway) modelHosts() map[string]bool {
	hosts := map[string]bool{}
	for _, p := range provider.All() {
		if !p.LLM() {
			continue
		}
		for _, raw := range []string{p.DefaultURL, g.opts.Getenv(p.BaseURLEnv)} {
			if h := hostOf(raw); h != "" {
				hosts[h] = true
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gr := range g.grants {
		hosts[strings.ToLower(gr.up.base.Hostname())] = true
	}
	return hosts
}
