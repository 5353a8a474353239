package recovery

import (
	"math"
	"time"
)

// Backoff returns the wait before retrying after the attempt-th consecutive
// transient failure (1 for the first): "full jitter" exponential backoff, a
// uniformly random duration in [0, min(max, base·2^(attempt-1))), with rnd
// giving values in [0, 1) (out-of-range values are clamped). A max of zero
// or less means no cap; the doubling saturates instead of overflowing.
//
// Written by hand rather than taken from github.com/sethvargo/go-retry: its
// backoffs are stateful iterators drawing jitter from the global source and
// sleeping on real timers, while recovery needs a pure function of the
// attempt number with an injectable random source and clock (for
// deterministic tests) and a per-failure floor (Retry-After) applied on top.
func Backoff(attempt int, base, max time.Duration, rnd func() float64) time.Duration {
	ceiling := ceilingFor(attempt, base, max)
	if ceiling <= 0 {
		return 0
	}
	r := rnd()
	switch {
	case math.IsNaN(r) || r < 0:
		r = 0
	case r >= 1:
		r = math.Nextafter(1, 0)
	}
	d := time.Duration(float64(ceiling) * r)
	if d < 0 || d > ceiling {
		return ceiling
	}
	return d
}

// ceilingFor is min(max, base·2^(attempt-1)) without overflow.
func ceilingFor(attempt int, base, max time.Duration) time.Duration {
	if base <= 0 {
		return 0
	}
	limit := time.Duration(math.MaxInt64)
	if max > 0 {
		limit = max
	}
	c := base
	for i := 1; i < attempt && c < limit; i++ {
		if c > limit/2 {
			c = limit
			break
		}
		c *= 2
	}
	return min(c, limit)
}
