package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Class is the failure class of a failed attempt. It decides what happens next:
// Transient failures are retried with backoff, Systematic ones go to Level-2
// analysis, Fatal ones are escalated at once.
type Class string

// The failure classes.
const (
	Transient  Class = "transient"
	Systematic Class = "systematic"
	Fatal      Class = "fatal"
)

// ErrBudgetSpent is wrapped by a failure that the run's budget caused: a
// call refused because it would pass a cap (architecture §4.17). Recovery
// starts no further attempt after one.
var ErrBudgetSpent = errors.New("the run's budget is spent")

// Error is a classified failure of one attempt.
type Error struct {
	// Class says how the failure is handled.
	Class Class
	// Reason is a short machine-friendly cause, e.g. "rate_limited",
	// "exit_status", "unparseable_output", "unauthorized", "timeout".
	Reason string
	// Status is the HTTP status for provider errors, 0 otherwise.
	Status int
	// RetryAfter is how long the provider asked us to wait (Retry-After,
	// x-ratelimit-reset); zero when it did not say.
	RetryAfter time.Duration
	// Err is the underlying cause.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	msg := string(e.Class)
	if e.Reason != "" {
		msg += " " + e.Reason
	}
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// StderrNote joins, in a command agent's failure message, what happened
// to the end of the program's stderr that follows it, so that a reader
// (executor.Result.Cause) can tell the two apart.
const StderrNote = "; the end of stderr:\n"

// Errorf returns an *Error of class c with a formatted cause.
func Errorf(c Class, reason, format string, args ...any) *Error {
	return &Error{Class: c, Reason: reason, Err: fmt.Errorf(format, args...)}
}

// ClassOf classifies err. An *Error anywhere in the chain decides; otherwise
// deadlines, timeouts and network errors are Transient, a cancelled context
// is Fatal (the run is being stopped), and anything else is Systematic.
func ClassOf(err error) Class {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	if errors.Is(err, context.Canceled) {
		return Fatal
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Transient
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return Transient
	}
	return Systematic
}

// RetryAfterOf returns the wait a provider asked for, or zero.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}
