package sandbox

import (
	"net/url"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
)

// Settings are what a Run is made from.
type Settings struct {
	// Mode is config.SandboxAuto, SandboxStrict or SandboxOff ("" = auto).
	Mode string
	// Hosts are the entries of sandbox.network with its named sets
	// expanded (see Hosts).
	Hosts []string
	// Read are extra paths processes may read (sandbox.read).
	Read []string
	// Environ is optr's environment: the base is built from it, pass-env
	// values are read from it, and mode off hands it over whole.
	Environ []string
	// Root is where processes' HOME and TMPDIR are made ("" = the
	// system's temporary directory).
	Root string
	// Unavailable marks layers ("fs", "net", "user", "groups") as not available
	// here, with the reason, whatever the kernel allows: how tests see
	// what auto and strict do on a machine without them.
	Unavailable map[string]string
}

// FromConfig returns the Settings of cfg's sandbox: section for a run
// whose optr environment is environ.
func FromConfig(cfg *config.Config, environ []string) Settings {
	return Settings{
		Mode:    cfg.Sandbox.Mode,
		Hosts:   Hosts(cfg, cfg.Sandbox.Network, environ),
		Read:    slices.Clone(cfg.Sandbox.Read),
		Environ: environ,
	}
}

// githubHosts are GitHub's hosts in the defaults set: the site, its API,
// its downloads, raw content and release assets.
var githubHosts = []string{
	"github.com", "api.github.com", "codeload.github.com", "uploads.github.com",
	"*.githubusercontent.com", "api.githubcopilot.com", "*.githubcopilot.com",
}

// registryHosts are the named sets' package registries.
var registryHosts = map[string][]string{
	"go":     {"proxy.golang.org", "sum.golang.org", "go.dev", "golang.org", "dl.google.com", "storage.googleapis.com"},
	"node":   {"registry.npmjs.org", "registry.yarnpkg.com", "nodejs.org"},
	"python": {"pypi.org", "files.pythonhosted.org"},
}

// Hosts expands the entries of sandbox.network: "defaults" becomes the
// configured LLM providers' API hosts (their base-url, the provider's own
// host or the host of its endpoint variable such as AZURE_OPENAI_ENDPOINT,
// as the registry of providers says: provider.Provider.APIHost; the host
// a pass-env key belongs to) and GitHub's (with GITHUB_SERVER_URL and GITHUB_API_URL on
// GitHub Enterprise Server); go, node and python become their registries;
// anything else is kept. Duplicates are dropped.
func Hosts(cfg *config.Config, entries []string, environ []string) []string {
	var out []string
	add := func(h ...string) {
		for _, x := range h {
			if x != "" && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	for _, e := range entries {
		switch {
		case e == config.NetworkDefaults:
			add(defaultHosts(cfg, environ)...)
		case registryHosts[e] != nil:
			add(registryHosts[e]...)
		default:
			add(e)
		}
	}
	return out
}

func defaultHosts(cfg *config.Config, environ []string) []string {
	out := slices.Clone(githubHosts)
	get := func(k string) string {
		for _, kv := range slices.Backward(environ) {
			if n, v, ok := strings.Cut(kv, "="); ok && n == k {
				return v
			}
		}
		return ""
	}
	out = append(out, hostOf(get("GITHUB_SERVER_URL")), hostOf(get("GITHUB_API_URL")))
	for _, name := range cfg.AgentNames {
		a := cfg.Agents[name]
		out = append(out, hostOf(a.BaseURL))
		if p, ok := provider.Lookup(a.Provider); ok {
			out = append(out, p.APIHost(get))
		}
		// A provider key passed to a command agent (Codex CLI, say)
		// reaches its provider's API.
		for _, k := range a.PassEnv {
			for _, p := range provider.All() {
				if slices.Contains(p.KeyEnv, k) {
					out = append(out, p.APIHost(get))
				}
			}
		}
	}
	return slices.DeleteFunc(out, func(h string) bool { return h == "" })
}

// hostOf is the host of an http(s) URL, "" when there is none.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	if p := u.Port(); p != "" && p != "443" && p != "80" {
		return u.Host
	}
	return u.Hostname()
}
