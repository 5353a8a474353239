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

// Preflighter is an Agent that can tell, before it runs, that it cannot
// work here: its program is not installed, it has no credentials. A run
// asks every agent (see Preflight) so that when none can work it stops
// before anything starts, with one message saying what to add.
type Preflighter interface {
	// Preflight returns nil when the agent may work, else the unusable
	// *Error (Reason ReasonUnusable) each of its attempts would fail with.
	Preflight() error
}

// Preflight returns a's Preflight error when a is a Preflighter, else nil.
func Preflight(a Agent) error {
	if p, ok := a.(Preflighter); ok {
		return p.Preflight()
	}
	return nil
}
