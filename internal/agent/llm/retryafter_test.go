package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"HTTP date", map[string]string{"Retry-After": "Sun, 01 Jun 2025 12:01:30 GMT"}, 90 * time.Second},
		{"HTTP date in the past", map[string]string{"Retry-After": "Sun, 01 Jun 2025 11:00:00 GMT"}, 0},
		{"RFC 850 date", map[string]string{"Retry-After": "Sunday, 01-Jun-25 12:00:10 GMT"}, 10 * time.Second},
		{"garbage Retry-After falls through", map[string]string{"Retry-After": "soon", "x-ratelimit-reset": "30"}, 30 * time.Second},
		{"negative Retry-After falls through", map[string]string{"Retry-After": "-5", "retry-after": "-5"}, 0},
		{"huge Retry-After is bounded", map[string]string{"Retry-After": "99999999999999999999"}, MaxRetryAfter},
		{"retry-after-ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"retry-after-ms beats Retry-After", map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{"openai requests exhausted", map[string]string{
			"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "0",
			"x-ratelimit-reset-tokens": "20ms", "x-ratelimit-remaining-tokens": "900",
		}, 6 * time.Minute},
		{"openai tokens exhausted", map[string]string{
			"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "12",
			"x-ratelimit-reset-tokens": "1s", "x-ratelimit-remaining-tokens": "0",
		}, time.Second},
		{"openai, nothing says which: the longer", map[string]string{
			"x-ratelimit-reset-requests": "20ms", "x-ratelimit-reset-tokens": "1.5s",
		}, 1500 * time.Millisecond},
		{"openai compound duration", map[string]string{"x-ratelimit-reset-tokens": "1h2m3s"}, time.Hour + 2*time.Minute + 3*time.Second},
		{"openai bad duration falls through", map[string]string{"x-ratelimit-reset-tokens": "6 minutes"}, 0},
		{"Retry-After beats openai resets", map[string]string{"Retry-After": "3", "x-ratelimit-reset-requests": "6m0s"}, 3 * time.Second},
		{"anthropic tokens exhausted", map[string]string{
			"anthropic-ratelimit-requests-reset": "2025-06-01T12:00:40Z", "anthropic-ratelimit-requests-remaining": "40",
			"anthropic-ratelimit-tokens-reset": "2025-06-01T12:00:05Z", "anthropic-ratelimit-tokens-remaining": "0",
		}, 5 * time.Second},
		{"anthropic, nothing says which: the latest", map[string]string{
			"anthropic-ratelimit-requests-reset":      "2025-06-01T12:00:40Z",
			"anthropic-ratelimit-output-tokens-reset": "2025-06-01T12:01:00+00:00",
		}, time.Minute},
		{"anthropic offset time", map[string]string{"anthropic-ratelimit-input-tokens-reset": "2025-06-01T14:00:20+02:00"}, 20 * time.Second},
		{"anthropic reset in the past", map[string]string{"anthropic-ratelimit-requests-reset": "2025-06-01T11:00:00Z"}, 0},
		{"epoch seconds", map[string]string{"x-ratelimit-reset": "1748779245"}, 45 * time.Second},
		{"epoch far ahead is bounded", map[string]string{"x-ratelimit-reset": "4102444800"}, MaxRetryAfter},
		{"small x-ratelimit-reset is seconds", map[string]string{"x-ratelimit-reset": "12"}, 12 * time.Second},
		{"bad x-ratelimit-reset", map[string]string{"x-ratelimit-reset": "NaN"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			if diff := cmp.Diff(tt.want, RetryAfter(h, now)); diff != "" {
				t.Errorf("RetryAfter(%v) (-want +got):\n%s", tt.headers, diff)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "0.5", "-1", "NaN", "Inf", "1e400", "Sun, 01 Jun 2025 12:01:30 GMT", "6m0s", "2025-06-01T12:00:40Z", "1748779245", ""} {
		f.Add(s, s, s, s, s)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, ra, openai, anthropic, epoch string) {
		h := http.Header{}
		h.Set("retry-after-ms", ms)
		h.Set("Retry-After", ra)
		h.Set("x-ratelimit-reset-requests", openai)
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("anthropic-ratelimit-tokens-reset", anthropic)
		h.Set("x-ratelimit-reset", epoch)
		d := RetryAfter(h, now)
		if d < 0 || d > MaxRetryAfter {
			t.Errorf("RetryAfter = %v, want within [0, %v]", d, MaxRetryAfter)
		}
	})
}
