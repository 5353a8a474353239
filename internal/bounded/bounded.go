// Package bounded reads input whose size optr bounds — an intent on
// standard input, a witness's answer, a model's answer — whole, or not at
// all: never more than one byte past the bound.
package bounded

import (
	"fmt"
	"io"
)

// TooLargeError is input that went on past its bound.
type TooLargeError struct {
	// Limit is the bound, in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Limit >= 1<<20 && e.Limit%(1<<20) == 0 {
		return fmt.Sprintf("more than %d MiB", e.Limit>>20)
	}
	return fmt.Sprintf("more than %d bytes", e.Limit)
}

// ReadAll reads r to its end. Past limit bytes it stops, having read one
// byte more, and fails with a *TooLargeError.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return data, nil
}
