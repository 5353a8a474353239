package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// checkEndpoint fails unless raw is an absolute http or https URL. from
// says where the value came from, for the error message.
func checkEndpoint(name, provider, raw, from string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badConfig("agent %q (%s): %s is %q, not an http(s) URL; set it to the API's base URL, e.g. https://host/v1", name, provider, from, raw)
	}
	return u, nil
}

// baseURL is the agent's endpoint: its base-url, else the provider's
// endpoint variable, else the provider's own API (p.DefaultURL), checked.
// A base URL that already ends in the path p's clients add to it
// (https://proxy.example/v1 for Anthropic) is refused with the URL to
// write instead: a request there would go to a doubled path and answer
// 404.
func baseURL(name string, p provider.Provider, cfg config.Agent, getenv func(string) string) (*url.URL, error) {
	raw, from := endpoint(p, cfg, getenv)
	if raw == "" && p.DefaultURL == "" {
		return nil, badConfig("agent %q (%s): no endpoint; set %s or base-url to the API's base URL, such as %s", name, cfg.Provider, pick(p.BaseURLEnv, "base-url"), p.ExampleURL)
	}
	if raw == "" {
		raw, from = p.DefaultURL, "the provider's URL"
	}
	u, err := checkEndpoint(name, cfg.Provider, raw, from)
	if err != nil {
		return nil, err
	}
	if fixed, doubled := p.Doubled(raw); doubled {
		return nil, badConfig("agent %q (%s): %s is %q, which ends in a path the %s client adds itself; set it to %s (%s base URLs are written like %s)", name, cfg.Provider, from, raw, p.Title, fixed, p.Title, p.ExampleURL)
	}
	return u, nil
}

// errOtherOrigin is why a request was not sent on to where its endpoint
// redirected it: another scheme, host or port.
var errOtherOrigin = errors.New("the endpoint redirected the request to another server")

// keepOrigin returns a copy of c that follows a redirect only within the
// origin (scheme, host and port) of the request that started it. Go
// forwards every header but Authorization and cookies on any redirect,
// so a key in api-key (Azure) or x-api-key (Anthropic) would otherwise
// reach whatever server the endpoint names.
func keepOrigin(c *http.Client) *http.Client {
	cp := *c
	next := c.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
			return fmt.Errorf("%w (%s://%s to %s://%s); set base-url to the server that answers", errOtherOrigin, from.Scheme, from.Host, req.URL.Scheme, req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}
