package check

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/config"
)

func init() {
	register(config.CheckMaxLength, kind{
		build: func(_ string, c config.Constraint, _ Options) (Checker, error) { return newMaxLength(c.Value) },
		describe: func(c config.Constraint) string {
			return fmt.Sprintf("the output is at most %s characters long", strings.TrimSpace(c.Value))
		},
	})
}

// maxLengthCheck passes when the output has at most limit characters
// (Unicode code points, not bytes).
type maxLengthCheck struct{ limit int }

func newMaxLength(value string) (Checker, error) {
	n, err := config.ParseCount(value)
	if err != nil {
		return nil, fmt.Errorf("value %s is not a positive whole number: set value: to the largest number of characters allowed", quote(value, maxQuote))
	}
	return maxLengthCheck{limit: n}, nil
}

func (c maxLengthCheck) Check(_ context.Context, output string) (Outcome, error) {
	n := utf8.RuneCountInString(output)
	if n <= c.limit {
		return Outcome{Pass: true}, nil
	}
	return Outcome{Reason: fmt.Sprintf("output is %d characters long; the limit is %d", n, c.limit)}, nil
}
