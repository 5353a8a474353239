package check

import "github.com/optr-dev/optr/internal/config"

// describe returns the configured description of a constraint, or a sentence
// saying what its check verifies (its kind's describe), or the name.
func describe(name string, c config.Constraint) string {
	if c.Description != "" {
		return c.Description
	}
	if k, ok := kinds[c.Check]; ok && k.describe != nil {
		if d := k.describe(c); d != "" {
			return d
		}
	}
	return name
}
