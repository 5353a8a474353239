package pipeline

import (
	"net/http"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/gateway"
	"github.com/optr-dev/optr/internal/redact"
)

// runGateway is a run's model gateway (architecture §4.18) and the place
// at it of each command agent whose gateway: names providers. Its methods
// do nothing on a nil one: a run none of whose agents uses the gateway has
// none.
type runGateway struct {
	gw     *gateway.Gateway
	badges map[string]*gateway.Badge
	// errs are the agents that could not be enrolled (no key or endpoint
	// in optr's environment): building one of them fails, before any
	// agent starts.
	errs map[string]error
}

// newRunGateway makes the gateway of a run of cfg, whose calls meter
// charges and caps, and enrolls every configured command agent with a
// gateway: list. Its placeholders are known before any agent is built, so
// that the run's redaction knows them from its first byte.
func newRunGateway(cfg *config.Config, deps Deps, meter *cost.Meter) *runGateway {
	var rg *runGateway
	for _, name := range cfg.AgentNames {
		a := cfg.Agents[name]
		if a.Provider != config.ProviderCommand || len(a.Gateway) == 0 {
			continue
		}
		if rg == nil {
			var transport http.RoundTripper
			if deps.HTTPClient != nil {
				transport = deps.HTTPClient.Transport
			}
			rg = &runGateway{
				gw:     gateway.New(gateway.Options{Getenv: deps.Getenv, Meter: meter, Transport: transport}),
				badges: map[string]*gateway.Badge{}, errs: map[string]error{},
			}
		}
		b, err := rg.gw.Enroll(name, gateway.Wiring{Providers: a.Gateway})
		if err != nil {
			rg.errs[name] = err
			continue
		}
		rg.badges[name] = b
	}
	return rg
}

// badge is agent name's place at the gateway: nil when it has none, an
// error when it could not be enrolled.
func (rg *runGateway) badge(name string) (*gateway.Badge, error) {
	if rg == nil {
		return nil, nil
	}
	if err := rg.errs[name]; err != nil {
		return nil, err
	}
	return rg.badges[name], nil
}

// redactor adds the gateway's placeholder keys to r: they are secrets optr
// hands out, redacted wherever they might be written.
func (rg *runGateway) redactor(r *redact.Redactor) *redact.Redactor {
	if rg == nil {
		return r
	}
	return redact.Merge(r, redact.New(rg.gw.Placeholders()...))
}

// close closes the gateway: its listener, if it had one, and every
// placeholder with it.
func (rg *runGateway) close() error {
	if rg == nil {
		return nil
	}
	return rg.gw.Close()
}
