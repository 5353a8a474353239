package commitback

import (
	"math/rand/v2"
	"time"
)

// Backoff is how long a commit-back waits after its lost-th lost round
// (1, 2, …) before the next, given how long the round it lost took.
type Backoff func(lost int, round time.Duration) time.Duration

// ContentionBackoff spreads writers that lost a race on the branch: full
// jitter over an exponential schedule from 250ms, capped at 8s.
func ContentionBackoff(lost int, _ time.Duration) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < lost && d < 8*time.Second; i++ {
		d *= 2
	}
	return time.Duration(rand.Float64() * float64(min(d, 8*time.Second)))
}
