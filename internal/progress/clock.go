package progress

import "time"

// Clock is the time source of a Coalescer; tests swap it.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d and returns a
	// function that cancels the call, reporting whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the Clock of package time.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
