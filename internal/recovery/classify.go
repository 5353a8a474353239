package recovery

import (
	"context"
	"errors"
	"net"

	"github.com/optr-dev/optr/internal/agent"
)

// rejected turns an error from accept into a systematic failure.
func rejected(err error) error {
	reason := ReasonFailedChecks
	var e *agent.Error
	if errors.As(err, &e) && e.Reason != "" {
		reason = e.Reason
	}
	return &agent.Error{Class: agent.Systematic, Reason: reason, Err: err}
}

// reasonOf is the short cause of err: an *agent.Error's Reason, else a
// guess from the error's kind.
func reasonOf(err error) string {
	var e *agent.Error
	if errors.As(err, &e) && e.Reason != "" {
		return e.Reason
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return OutcomeCancelled
	case errors.As(err, &ne):
		return "network"
	}
	return "error"
}
