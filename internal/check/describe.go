package check

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/config"
)

// describe returns the configured description of a constraint, or a sentence
// saying what its check verifies (a judge's criterion, or the name).
func describe(name string, c config.Constraint) string {
	if c.Description != "" {
		return c.Description
	}
	switch c.Check {
	case config.CheckContains:
		return "the output contains " + quote(c.Value, maxQuote)
	case config.CheckRegex:
		return fmt.Sprintf("the output matches the regular expression /%s/", c.Pattern)
	case config.CheckNotRegex:
		return fmt.Sprintf("the output does not match the regular expression /%s/", c.Pattern)
	case config.CheckMaxLength:
		return fmt.Sprintf("the output is at most %s characters long", strings.TrimSpace(c.Value))
	case config.CheckJSON:
		return "the output is one valid JSON value and nothing else"
	case config.CheckJSONSchema:
		return "the output is JSON valid against the schema " + c.Schema
	case config.CheckCommand:
		return fmt.Sprintf("the command %s exits 0 with the output on its stdin", quote(strings.Join(c.Run, " "), maxQuote))
	case config.CheckJudge:
		if c.Criterion != "" {
			return c.Criterion
		}
	}
	return name
}
