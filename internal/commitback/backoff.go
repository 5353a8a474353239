package commitback

import (
	"math/rand/v2"
	"time"
)

// Backoff is how long a commit-back waits after its lost-th lost round
// (1, 2, …) before the next, given how long the round it lost took.
type Backoff func(lost int, round time.Duration) time.Duration

// ContentionBackoff spreads writers that lost a race on the branch, in
// units of the round they lost: a round is what one writer takes to land,
// so a wait measured in rounds fits GitHub's pace and a fake's alike (a
// fixed schedule from 250 ms left 8 runs that each land in a few
// milliseconds waiting seconds). The wait is uniform ("full jitter") over
// a window of 2 rounds that grows by a quarter with each loss, up to 32
// rounds and at most a minute. Of runs that all start at once, one lands
// per round; a window about as long as the queue behind it makes the
// others' next rounds overlap little, so few rounds are lost again, while
// a window that grows only slowly keeps the branch busy: in a simulation
// of 8 and 32 runs starting together, the last landed in 1.3–1.5 × the
// time a serial queue takes, at 14–16 requests a commit for 8.
func ContentionBackoff(lost int, round time.Duration) time.Duration {
	return time.Duration(rand.Float64() * float64(contentionWindow(lost, round)))
}

// Backoff window: 2 rounds at the first loss, × 1.25 at each further one,
// at most maxWindowRounds rounds and maxWait.
const (
	maxWindowRounds = 32
	minRound        = time.Millisecond
	maxWait         = time.Minute
)

// contentionWindow is the window ContentionBackoff draws from.
func contentionWindow(lost int, round time.Duration) time.Duration {
	rounds := 2.0
	for i := 1; i < lost && rounds < maxWindowRounds; i++ {
		rounds *= 1.25
	}
	rounds = min(rounds, maxWindowRounds)
	return min(time.Duration(rounds*float64(max(round, minRound))), maxWait)
}
