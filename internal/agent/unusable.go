package agent

import (
	"errors"
	"fmt"
)

// ReasonUnusable is the Reason of an *Error whose agent cannot work in this
// environment at all (its program is missing, its service refused the
// credentials): no retry, hint or other attempt can change that, only a
// maintainer adding what is missing.
const ReasonUnusable = "unusable"

// UnusableError says why an agent cannot work here. It travels inside a
// Fatal *Error with Reason ReasonUnusable (see Unusable), so that the run
// records it like any failure and the driver can tell "nothing is usable"
// apart from ordinary failures (see UnusableComment).
type UnusableError struct {
	// Agent and Provider name the agent.
	Agent    string
	Provider string
	// Problem says in one sentence what is missing or was refused; it may
	// quote a service's own message.
	Problem string
}

// Error implements error.
func (e *UnusableError) Error() string {
	return fmt.Sprintf("agent %q (%s) cannot run here: %s", e.Agent, e.Provider, e.Problem)
}

// Unusable returns the Fatal *Error, Reason ReasonUnusable, for an agent
// that cannot work here because of problem.
func Unusable(agentName, provider, problem string) *Error {
	return &Error{Class: Fatal, Reason: ReasonUnusable, Err: &UnusableError{Agent: agentName, Provider: provider, Problem: problem}}
}

// IsUnusable reports whether err is, or wraps, an unusable agent's failure.
func IsUnusable(err error) bool {
	var u *UnusableError
	if errors.As(err, &u) {
		return true
	}
	var e *Error
	return errors.As(err, &e) && e.Reason == ReasonUnusable
}
