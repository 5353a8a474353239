package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/config"
)

func init() {
	register(config.CheckContains, kind{
		build: func(_ string, c config.Constraint, _ Options) (Checker, error) { return newContains(c.Value) },
		describe: func(c config.Constraint) string {
			return "the output contains " + quote(c.Value, maxQuote)
		},
	})
}

// containsCheck passes when the output contains a substring.
type containsCheck struct{ needle string }

func newContains(value string) (Checker, error) {
	if value == "" {
		return nil, errors.New("value is empty: set value: to the text the output must contain")
	}
	return containsCheck{needle: value}, nil
}

func (c containsCheck) Check(_ context.Context, output string) (Outcome, error) {
	if strings.Contains(output, c.needle) {
		return Outcome{Pass: true}, nil
	}
	return Outcome{Reason: fmt.Sprintf("output does not contain %s", quote(c.needle, maxQuote))}, nil
}
