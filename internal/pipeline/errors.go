package pipeline

import (
	"errors"

	"github.com/optr-dev/optr/internal/budget"
)

// InputError is bad input caught before anything was written: an unknown
// agent or pipeline, a bad workflow name, a constraint name that is not a
// slug. The CLI maps it to exit code 2.
type InputError struct{ Err error }

// Error implements error.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{Err: err}
}

// IsInputError reports whether err is (or wraps) an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// Refused reports whether err refused a run before any agent started, so
// that nothing was spent: bad input or configuration (an *InputError), no
// agent usable here (the *NothingUsableError Prepare returns) or a budget
// already spent (a *budget.RefusedError). The CLI and the Action exit 2
// for each of them, and 1 for a run that started and failed
// (architecture §4.1).
func Refused(err error) bool {
	var (
		ie *InputError
		nu *NothingUsableError
		br *budget.RefusedError
	)
	return errors.As(err, &ie) || errors.As(err, &nu) || errors.As(err, &br)
}
