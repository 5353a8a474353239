package check

import (
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

// mustNew builds a checker or fails the test.
func mustNew(t *testing.T, name string, c config.Constraint, opts Options) Checker {
	t.Helper()
	ch, err := New(name, c, opts)
	if err != nil {
		t.Fatalf("New(%q, %+v) error: %v", name, c, err)
	}
	return ch
}

// run checks output with ch and returns the outcome and the error text.
func run(t *testing.T, ch Checker, output string) (Outcome, string) {
	t.Helper()
	o, err := ch.Check(t.Context(), output)
	if err != nil {
		return o, err.Error()
	}
	return o, ""
}
