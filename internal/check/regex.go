package check

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/config"
)

func init() {
	register(config.CheckRegex, kind{
		build: func(_ string, c config.Constraint, _ Options) (Checker, error) { return newRegex(c.Pattern, false) },
		describe: func(c config.Constraint) string {
			return fmt.Sprintf("the output matches the regular expression /%s/", c.Pattern)
		},
	})
	register(config.CheckNotRegex, kind{
		build: func(_ string, c config.Constraint, _ Options) (Checker, error) { return newRegex(c.Pattern, true) },
		describe: func(c config.Constraint) string {
			return fmt.Sprintf("the output does not match the regular expression /%s/", c.Pattern)
		},
	})
}

// regexCheck passes when the output matches an RE2 pattern (regex) or when
// it does not (not-regex). The pattern is compiled by config.CompilePattern,
// the one owner of that compilation: once for validation and use alike.
type regexCheck struct {
	re     *regexp.Regexp
	negate bool
}

func newRegex(pattern string, negate bool) (Checker, error) {
	if pattern == "" {
		return nil, errors.New("pattern is empty: set pattern: to an RE2 regular expression")
	}
	re, err := config.CompilePattern(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %s is not a valid RE2 regular expression: %w", quote(pattern, maxQuote), err)
	}
	return regexCheck{re: re, negate: negate}, nil
}

func (c regexCheck) Check(_ context.Context, output string) (Outcome, error) {
	loc := c.re.FindStringIndex(output)
	switch {
	case loc == nil && !c.negate:
		return Outcome{Reason: fmt.Sprintf("output does not match /%s/", c.re)}, nil
	case loc == nil && c.negate:
		return Outcome{Pass: true}, nil
	case !c.negate:
		return Outcome{Pass: true}, nil
	}
	line, col := position(output, loc[0])
	return Outcome{Reason: fmt.Sprintf("output matches /%s/ at line %d, column %d: %s",
		c.re, line, col, quote(output[loc[0]:loc[1]], maxQuote))}, nil
}

// position returns the 1-based line and column (in characters) of byte
// offset off in s.
func position(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	line, start := 1, 0
	for i := range off {
		if s[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCountInString(s[start:off]) + 1
}
