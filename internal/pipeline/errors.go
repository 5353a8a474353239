package pipeline

import "errors"

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
