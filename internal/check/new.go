package check

import (
	"fmt"

	"github.com/optr-dev/optr/internal/config"
)

// New builds the checker for the constraint called name from its config.
// Everything that can be checked without the output is checked here (a
// pattern that does not compile, a limit that is not a positive integer, a
// judge without an agent), and the error names the constraint. Files are
// not read here: a json-schema checker loads its schema on first use, so a
// missing schema leaves the constraint unverified instead of failing the run.
func New(name string, c config.Constraint, opts Options) (Checker, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	ch, err := build(name, c, opts)
	if err != nil {
		return nil, fmt.Errorf("constraint %q (check: %s): %w", name, c.Check, err)
	}
	return ch, nil
}

// build makes the checker with its kind's builder, cached and redacted.
func build(name string, c config.Constraint, opts Options) (Checker, error) {
	k, err := kindOf(c)
	if err != nil {
		return nil, err
	}
	ch, err := k.build(name, c, opts)
	if err != nil {
		return nil, err
	}
	return redacted(cached(name, k, ch, opts), opts), nil
}

// cached serves ch's verdicts from the run's cache (cachedCheck), unless
// it asks an agent and caches its verdicts itself.
func cached(name string, k kind, ch Checker, opts Options) Checker {
	if k.judged {
		return ch
	}
	cache := opts.Cache
	if cache == nil {
		cache = NewVerdicts()
	}
	return cachedCheck{Checker: ch, name: name, cache: cache, command: k.program}
}

// redacted wraps ch so Evaluate redacts its reasons with opts.Redactor.
func redacted(ch Checker, opts Options) Checker {
	if !opts.Redactor.Active() {
		return ch
	}
	return withRedactor{Checker: ch, r: opts.Redactor}
}
