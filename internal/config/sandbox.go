package config

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/sandbox/env"
)

// Sandbox modes (sandbox.mode, architecture §4.14).
const (
	// SandboxAuto enforces every layer the platform allows and says which
	// it could not (the default).
	SandboxAuto = "auto"
	// SandboxStrict refuses to start agents when a layer cannot be enforced.
	SandboxStrict = "strict"
	// SandboxOff runs agents and checks as before the sandbox: optr's
	// environment, no confinement.
	SandboxOff = "off"
)

// SandboxModes are the allowed values of sandbox.mode.
var SandboxModes = []string{SandboxAuto, SandboxStrict, SandboxOff}

// Named host sets of sandbox.network.
const (
	// NetworkDefaults are the configured LLM providers' API hosts and
	// GitHub's.
	NetworkDefaults = "defaults"
	// NetworkAny lets agents reach any host (still through the proxy, and
	// recorded).
	NetworkAny = "*"
)

// NetworkSets are the named sets sandbox.network may list besides
// NetworkDefaults and NetworkAny: each adds a toolchain's package
// registries.
var NetworkSets = []string{"go", "node", "python"}

// Sandbox configures agent isolation (architecture §4.14).
type Sandbox struct {
	// Mode is auto, strict or off (default auto).
	Mode string `yaml:"mode" json:"mode"`
	// Network lists the hosts agents and checks may reach: named sets
	// (defaults, go, node, python), host names (api.example.com,
	// *.example.com), host:port, IP addresses, or "*" for any host
	// (default [defaults]).
	Network []string `yaml:"network" json:"network"`
	// Read lists extra absolute paths agents and checks may read.
	Read []string `yaml:"read" json:"read"`
}

// sandboxDefaults fills the keys of sandbox: the file did not write.
func sandboxDefaults(s *Sandbox, unset func(key string) bool) {
	if unset("sandbox.mode") {
		s.Mode = SandboxAuto
	}
	if unset("sandbox.network") {
		s.Network = []string{NetworkDefaults}
	}
	if s.Network == nil {
		s.Network = []string{}
	}
	if s.Read == nil {
		s.Read = []string{}
	}
}

// hostRE matches a DNS name, optionally with a leading "*." wildcard.
var hostRE = lazyregexp.New(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func (v *validator) sandbox() {
	s := v.c.Sandbox
	v.enum("sandbox.mode", "sandbox mode", s.Mode, SandboxModes)
	for i, h := range s.Network {
		if msg := networkEntryProblem(h); msg != "" {
			v.ps.add(fmt.Sprintf("sandbox.network[%d]", i), "%s", msg)
		}
	}
	for i, p := range s.Read {
		if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
			v.ps.add(fmt.Sprintf("sandbox.read[%d]", i), "%q is not an absolute path; write the full path, such as /opt/hostedtoolcache", p)
		}
	}
}

// networkEntryProblem says what is wrong with one sandbox.network entry,
// "" when nothing is.
func networkEntryProblem(h string) string {
	if h == NetworkDefaults || h == NetworkAny {
		return ""
	}
	for _, set := range NetworkSets {
		if h == set {
			return ""
		}
	}
	if strings.Contains(h, "/") {
		return fmt.Sprintf("%q is a URL, not a host: write the host name alone, such as api.example.com", h)
	}
	host, port := h, ""
	if hp, p, err := net.SplitHostPort(h); err == nil {
		host, port = hp, p
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("%q has port %q, which is not a number from 1 to 65535", h, port)
		}
	}
	if net.ParseIP(host) != nil || hostRE.MatchString(host) {
		return ""
	}
	return fmt.Sprintf("%q is not a host: write a name (api.example.com, *.example.com), name:port, an IP address, a named set (%s, %s) or %q for any host",
		h, NetworkDefaults, strings.Join(NetworkSets, ", "), NetworkAny)
}

// passEnv checks an agent's pass-env written at key: variable names, none
// of them a GitHub or Actions credential or optr's ledger key, which no
// agent is ever given.
func (v *validator) passEnv(key string, names []string) {
	seen := map[string]bool{}
	for i, name := range names {
		k := fmt.Sprintf("%s[%d]", key, i)
		v.envName(k, name)
		switch {
		case env.Credential(name):
			v.ps.add(k, "%s is a GitHub or Actions credential (or optr's ledger key), which optr never gives an agent: optr does every write to GitHub itself; remove it from pass-env", name)
		case strings.HasPrefix(strings.ToUpper(name), "OPTR_"):
			v.ps.add(k, "OPTR_ variables are set by optr for every command agent; remove %s from pass-env", name)
		case seen[name]:
			v.ps.add(k, "%s is listed twice", name)
		}
		seen[name] = true
	}
}
