package llm

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter bounds what RetryAfter returns; a provider asking for longer
// is as good as saying "not today".
const MaxRetryAfter = 24 * time.Hour

// RetryAfter returns how long the response headers h ask the client to wait
// before its next request, as seen at now; zero when they do not say. It
// reads, in order of preference, and returns the first that parses:
//
//   - retry-after-ms: milliseconds (OpenAI, Azure);
//   - Retry-After: seconds or an HTTP date (RFC 9110);
//   - x-ratelimit-reset-requests / x-ratelimit-reset-tokens: durations such
//     as "1s", "6m0s", "20ms" (OpenAI); of the two, the one whose
//     x-ratelimit-remaining-* is 0, else the longer;
//   - anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset:
//     RFC 3339 times; the exhausted one (remaining 0), else the latest;
//   - x-ratelimit-reset: epoch seconds (values below 10^9 are taken as
//     seconds from now).
//
// The result is never negative and at most MaxRetryAfter.
//
// The SDKs parse some of these for their own retries but do not export it,
// and none knows all of them, hence this function.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if d, ok := retryAfterMS(h.Get("retry-after-ms")); ok {
		return d
	}
	if d, ok := retryAfterValue(h.Get("Retry-After"), now); ok {
		return d
	}
	if d, ok := openAIReset(h); ok {
		return d
	}
	if d, ok := anthropicReset(h, now); ok {
		return d
	}
	if d, ok := epochReset(h.Get("x-ratelimit-reset"), now); ok {
		return d
	}
	return 0
}

// bound clamps d to [0, MaxRetryAfter].
func bound(d time.Duration) time.Duration {
	return min(max(d, 0), MaxRetryAfter)
}

// fromUnits converts a count of unit into a bounded duration without
// overflowing; NaN and negative values are not waits.
func fromUnits(v float64, unit time.Duration) (time.Duration, bool) {
	if math.IsNaN(v) || v < 0 {
		return 0, false
	}
	if v >= float64(MaxRetryAfter/unit) {
		return MaxRetryAfter, true
	}
	return bound(time.Duration(v * float64(unit))), true
}

func retryAfterMS(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, false
	}
	return fromUnits(f, time.Millisecond)
}

func retryAfterValue(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return fromUnits(f, time.Second)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return bound(t.Sub(now)), true
}

// openAIReset reads x-ratelimit-reset-{requests,tokens}.
func openAIReset(h http.Header) (time.Duration, bool) {
	var best time.Duration
	found, exhausted := false, false
	for _, kind := range []string{"requests", "tokens"} {
		v := strings.TrimSpace(h.Get("x-ratelimit-reset-" + kind))
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			continue
		}
		d = bound(d)
		out := strings.TrimSpace(h.Get("x-ratelimit-remaining-"+kind)) == "0"
		best, found, exhausted = choose(best, d, found, exhausted, out)
	}
	return best, found
}

// anthropicReset reads anthropic-ratelimit-*-reset.
func anthropicReset(h http.Header, now time.Time) (time.Duration, bool) {
	var best time.Duration
	found, exhausted := false, false
	for _, kind := range []string{"requests", "tokens", "input-tokens", "output-tokens"} {
		v := strings.TrimSpace(h.Get("anthropic-ratelimit-" + kind + "-reset"))
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			continue
		}
		d := bound(t.Sub(now))
		out := strings.TrimSpace(h.Get("anthropic-ratelimit-"+kind+"-remaining")) == "0"
		best, found, exhausted = choose(best, d, found, exhausted, out)
	}
	return best, found
}

// choose folds one limit's reset d into the running choice: an exhausted
// limit beats one that is not; among equals the longer wait wins.
func choose(best, d time.Duration, found, bestExhausted, exhausted bool) (time.Duration, bool, bool) {
	switch {
	case !found, exhausted && !bestExhausted:
		return d, true, exhausted
	case exhausted == bestExhausted && d > best:
		return d, true, exhausted
	default:
		return best, true, bestExhausted
	}
}

// epochSecondsFloor separates epoch timestamps from second counts in
// x-ratelimit-reset: 10^9 seconds is September 2001.
const epochSecondsFloor = 1e9

func epochReset(v string, now time.Time) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	if f < epochSecondsFloor {
		return fromUnits(f, time.Second)
	}
	if f > float64(now.Unix())+MaxRetryAfter.Seconds() {
		return MaxRetryAfter, true
	}
	sec, frac := math.Modf(f)
	return bound(time.Unix(int64(sec), int64(frac*1e9)).Sub(now)), true
}
