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
	// ErrAbort: watcher.max-failures agents failed, so the run is aborted.
	ErrAbort = errors.New("run aborted by the watcher: watcher.max-failures agents failed")
)
