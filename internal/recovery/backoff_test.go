package recovery

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	const s = time.Second
	tests := []struct {
		name      string
		attempt   int
		base, max time.Duration
		r         float64
		want      time.Duration
	}{
		{"first, half", 1, s, 30 * s, 0.5, 500 * time.Millisecond},
		{"second doubles", 2, s, 30 * s, 0.5, s},
		{"fifth", 5, s, 30 * s, 0.5, 8 * s},
		{"capped", 6, s, 30 * s, 0.5, 15 * s},
		{"far beyond the cap", 1000, s, 30 * s, 0.5, 15 * s},
		{"zero jitter", 3, s, 30 * s, 0, 0},
		{"jitter near 1 stays below the ceiling", 1, s, 30 * s, 0.999999, 999999 * time.Microsecond},
		{"jitter 1 is clamped below the ceiling", 1, s, 30 * s, 1, s - 1},
		{"negative jitter is clamped", 1, s, 30 * s, -3, 0},
		{"NaN jitter is clamped", 1, s, 30 * s, math.NaN(), 0},
		{"attempt 0 is the first", 0, s, 30 * s, 0.5, 500 * time.Millisecond},
		{"no base, no wait", 3, 0, 30 * s, 0.5, 0},
		{"max below base caps", 1, 10 * s, s, 0.5, 500 * time.Millisecond},
		{"no cap saturates", 200, s, 0, 0.5, time.Duration(float64(math.MaxInt64) * 0.5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Backoff(tt.attempt, tt.base, tt.max, func() float64 { return tt.r })
			if got != tt.want {
				t.Errorf("Backoff(%d, %s, %s, %v) = %s, want %s", tt.attempt, tt.base, tt.max, tt.r, got, tt.want)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		attempt := rnd.IntN(80) - 5
		base := time.Duration(rnd.Int64N(int64(time.Minute)))
		maxd := time.Duration(rnd.Int64N(int64(time.Hour)))
		got := Backoff(attempt, base, maxd, rnd.Float64)
		if ceil := ceilingFor(attempt, base, maxd); got < 0 || got > ceil || ceil > maxd {
			t.Fatalf("Backoff(%d, %s, %s) = %s, ceiling %s", attempt, base, maxd, got, ceil)
		}
	}
}

func FuzzBackoff(f *testing.F) {
	f.Add(1, int64(time.Second), int64(30*time.Second), 0.5)
	f.Add(64, int64(math.MaxInt64), int64(0), 0.999)
	f.Fuzz(func(t *testing.T, attempt int, base, maxd int64, r float64) {
		got := Backoff(attempt, time.Duration(base), time.Duration(maxd), func() float64 { return r })
		if got < 0 {
			t.Fatalf("negative backoff %d", got)
		}
		if maxd > 0 && got > time.Duration(maxd) {
			t.Fatalf("backoff %s above max %s", got, time.Duration(maxd))
		}
		if base <= 0 && got != 0 {
			t.Fatalf("backoff %s without a base", got)
		}
	})
}
