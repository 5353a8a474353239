package escalation

import "errors"

// The causes the Watcher cancels an agent's context with
// (context.WithCancelCause); the executor tells them apart with errors.Is.
var (
	// ErrRestart: the agent showed no progress for watcher.stuck-after and
	// is to be relaunched with fresh state.
	ErrRestart = errors.New("restarted by the watcher: the agent showed no progress for watcher.stuck-after")
	// ErrStuck: the agent showed no progress and has no restart left
	// (watcher.max-restarts); it is stopped and reported as failed.
	ErrStuck = errors.New("stopped by the watcher: the agent showed no progress for watcher.stuck-after and has no restart left (watcher.max-restarts)")
	// ErrAbort: watcher.max-failures agents failed and nothing left can
	// make the run succeed, so the rest of it is stopped.
	ErrAbort = errors.New("the watcher aborted the run")
)

// AbortError is the watcher's abort with the reason of its decision, in
// numbers: what a run aborted with says about itself. It is ErrAbort.
type AbortError struct{ Reason string }

// Error implements error.
func (e *AbortError) Error() string { return ErrAbort.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrAbort) hold.
func (e *AbortError) Is(target error) bool { return target == ErrAbort }

// AbortOf returns the watcher's abort that err is or wraps, nil when there
// is none.
func AbortOf(err error) *AbortError {
	var ae *AbortError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
