package config

import (
	"fmt"
	"maps"
	"slices"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/provider"
)

// validator checks a decoded config with its defaults filled in, reporting
// every problem to ps.
type validator struct {
	c  *Config
	ps *problems
}

// validate checks everything the types cannot say: enumerations, required
// and forbidden keys, and references between agents, constraints and
// pipelines.
func validate(c *Config, ps *problems) {
	v := &validator{c: c, ps: ps}
	v.agents()
	v.constraints()
	v.pipelines()
	v.selection()
	v.checkpoints()
	v.escalation()
	v.recovery()
	v.ledger()
	v.watcher()
	v.budget()
	v.prices()
	v.executor()
	v.changes()
	v.detection()
	v.sandbox()
}

// written reports whether key appears in the file.
func (v *validator) written(key string) bool { return v.ps.written(key) }

// maxNameLen bounds agent, constraint and pipeline names: they become file
// names and path segments.
const maxNameLen = 64

var slugRE = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*$`)

// name checks that a name written as the key of an agents, constraints or
// pipelines entry can become a file name.
func (v *validator) name(key, what, name string) {
	switch {
	case len(name) > maxNameLen:
		v.ps.add(key, "%s name %q is %d characters long; at most %d are allowed", what, name, len(name), maxNameLen)
	case !slugRE.MatchString(name):
		v.ps.add(key, "%s name %q is not allowed: use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", what, name)
	}
}

// agentRef checks that name, written at key, is a configured agent, and
// returns the agent when it is.
func (v *validator) agentRef(key, name string) (Agent, bool) {
	a, ok := v.c.Agents[name]
	if !ok {
		v.ps.add(key, "unknown agent %q; %s", name, known("agents", v.c.AgentNames))
	}
	return a, ok
}

// llmRef checks that name, written at key, is a configured LLM agent; what
// says what it is used for ("a judge").
func (v *validator) llmRef(key, name, what string) {
	if a, ok := v.agentRef(key, name); ok && !provider.IsLLM(a.Provider) {
		v.ps.add(key, "agent %q is a %s agent, but %s must be an LLM agent (provider %s)", name, a.Provider, what, oneOf(provider.LLMNames()))
	}
}

// constraintRef checks that name, written at key, is a configured constraint.
func (v *validator) constraintRef(key, name string) {
	if _, ok := v.c.Constraints[name]; !ok {
		v.ps.add(key, "unknown constraint %q; %s", name, known("constraints", v.c.ConstraintNames))
	}
}

// names checks a list of agent or constraint names written at key: each
// must exist (ref) and appear once.
func (v *validator) names(key string, names []string, ref func(key, name string)) {
	seen := map[string]bool{}
	for i, n := range names {
		k := fmt.Sprintf("%s[%d]", key, i)
		if seen[n] {
			v.ps.add(k, "%q is listed twice", n)
			continue
		}
		seen[n] = true
		ref(k, n)
	}
}

// enum checks that value, written at key, is one of allowed.
func (v *validator) enum(key, what, value string, allowed []string) bool {
	if value == "" {
		v.ps.add(key, "%s is required (one of %s)", what, oneOf(allowed))
		return false
	}
	if !slices.Contains(allowed, value) {
		v.ps.add(key, "unknown %s %q (want one of %s)", what, value, oneOf(allowed))
		return false
	}
	return true
}

// atLeast checks an integer bound.
func (v *validator) atLeast(key string, n, lowest int64) {
	if n < lowest {
		v.ps.add(key, "must be at least %d, got %d", lowest, n)
	}
}

// notUsed reports each of keys (below parent) that is written although the
// kind of thing parent is does not use it.
func (v *validator) notUsed(parent, kind string, keys ...string) {
	for _, k := range keys {
		if v.written(parent + "." + k) {
			v.ps.add(parent+"."+k, "%s is not used by %s; remove it", k, kind)
		}
	}
}

// known lists what exists, for "unknown X" messages.
func known(what string, names []string) string {
	if len(names) == 0 {
		return "no " + what + " are configured"
	}
	return "the " + what + " are " + oneOf(names)
}

// sortedKeys returns m's keys in order, so that problems are reported
// deterministically.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// envNameRE matches a portable environment variable name.
var envNameRE = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envName checks an environment variable name written at key.
func (v *validator) envName(key, name string) {
	if !envNameRE.MatchString(name) {
		v.ps.add(key, "%q is not an environment variable name: use letters, digits and '_', not starting with a digit", name)
	}
}
