package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

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
