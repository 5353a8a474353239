package check

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/config"
)

// kind is how package check builds one kind of check. The kinds themselves,
// their keys and how those are validated are the config's registry
// (config.CheckKinds); each kind's file here registers its builder, and
// TestKindsAgree keeps the two in step.
type kind struct {
	// build makes the checker of the constraint called name. It refuses
	// what it cannot build with, since a Config made in code was never
	// validated.
	build func(name string, c config.Constraint, opts Options) (Checker, error)
	// describe says what the check verifies, for prompts and tables, when
	// the constraint has no description; "" stands for the constraint's
	// name.
	describe func(c config.Constraint) string
	// judged is true for a checker that asks an agent: it caches its
	// verdicts itself. Every other kind gives the same verdict for the
	// same output, so its verdicts are cached for the run (cachedCheck).
	judged bool
	// program is true for a checker that runs a program in the result's
	// directory: its cached verdicts are keyed by the result's patch too,
	// and it waits for a command slot (cachedCheck).
	program bool
	// preflight, when set, checks before any agent starts that the check
	// can run at all — its program resolves, its schema compiles — so a
	// check that cannot run is a configuration error (exit 2), never a
	// constraint that passes every output. It returns the key under the
	// constraint the problem is written at ("run[0]", "schema") and what
	// is wrong; nil when nothing is. Resolve calls it for every
	// constraint the config defines.
	preflight func(c config.Constraint, opts Options) (key string, err error)
}

// kinds holds the builder of each check kind, by name.
var kinds = map[string]kind{}

// register adds the builder of check kind name. Each kind's file calls it
// from its init: one map entry, no work at start-up.
func register(name string, k kind) { kinds[name] = k }

// kindOf returns the builder of c's kind, or an error that lists the kinds.
func kindOf(c config.Constraint) (kind, error) {
	k, ok := kinds[c.Check]
	switch {
	case c.Check == "":
		return kind{}, fmt.Errorf("no check kind: set check: to one of %s", strings.Join(config.CheckKinds(), ", "))
	case !ok:
		return kind{}, fmt.Errorf("unknown check kind %q: use one of %s", c.Check, strings.Join(config.CheckKinds(), ", "))
	}
	return k, nil
}
