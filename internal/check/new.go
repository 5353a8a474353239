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
	if c.Check != config.CheckJudge {
		// Every other kind gives the same verdict for the same output
		// (a command check in a result's own directory: and the same
		// patch), so its verdicts are cached for the run.
		cache := opts.Cache
		if cache == nil {
			cache = NewVerdicts()
		}
		ch = cachedCheck{Checker: ch, name: name, cache: cache, command: c.Check == config.CheckCommand}
	}
	return redacted(ch, opts), nil
}

// redacted wraps ch so Evaluate redacts its reasons with opts.Redactor.
func redacted(ch Checker, opts Options) Checker {
	if !opts.Redactor.Active() {
		return ch
	}
	return withRedactor{Checker: ch, r: opts.Redactor}
}

func build(name string, c config.Constraint, opts Options) (Checker, error) {
	switch c.Check {
	case config.CheckContains:
		return newContains(c.Value)
	case config.CheckRegex:
		return newRegex(c.Pattern, false)
	case config.CheckNotRegex:
		return newRegex(c.Pattern, true)
	case config.CheckMaxLength:
		return newMaxLength(c.Value)
	case config.CheckJSON:
		return jsonCheck{}, nil
	case config.CheckJSONSchema:
		return newSchema(c.Schema, opts.Dir)
	case config.CheckCommand:
		return newCommand(name, c, opts)
	case config.CheckJudge:
		return newJudgeFromConfig(name, c, opts)
	case "":
		return nil, fmt.Errorf("no check kind: set check: to one of contains, regex, not-regex, max-length, json, json-schema, command, judge")
	default:
		return nil, fmt.Errorf("unknown check kind %q: use one of contains, regex, not-regex, max-length, json, json-schema, command, judge", c.Check)
	}
}
