package stages

import (
	"time"

	"github.com/optr-dev/optr/internal/config"
)

// Config is a stages pipeline as Run needs it.
type Config struct {
	// Pipeline is the pipeline's name; it goes into the ledger so that the
	// next run of the pipeline finds its feedback (FeedbackFinder).
	Pipeline string
	// Stages are the stage agents' names, in the order they run (at least
	// two, each once).
	Stages []string
	// Restarts bounds the restarts of one crashed stage (0: escalate at the
	// first crash).
	Restarts int
	// RestartBackoff is the wait before a stage's first restart; it doubles
	// after every crash, capped at config.MaxRestartBackoff.
	RestartBackoff time.Duration
	// Feedback gives the first stage the previous completed run's last
	// output (Input.Feedback).
	Feedback bool
}

// ConfigFrom returns the Config of pipeline name, as the config loader
// resolved it (defaults filled in).
func ConfigFrom(name string, p config.Pipeline) Config {
	return Config{
		Pipeline:       name,
		Stages:         append([]string(nil), p.Agents...),
		Restarts:       p.Restarts,
		RestartBackoff: p.RestartBackoff.D(),
		Feedback:       p.Feedback,
	}
}

// Backoff is the wait before restart n (1 for the first) of a crashed
// stage: base × 2^(n−1), capped at config.MaxRestartBackoff.
func Backoff(n int, base time.Duration) time.Duration {
	limit := config.MaxRestartBackoff
	if base <= 0 {
		return 0
	}
	d := min(base, limit)
	for i := 1; i < n && d < limit; i++ {
		d = min(2*d, limit)
	}
	return d
}
