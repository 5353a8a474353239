package github

import (
	"context"
	"time"
)

// boundKey carries a tighter retry bound for the requests made with a
// context: a few calls must answer quickly rather than ride out an outage.
type boundKey struct{}

type retryBound struct {
	retries int
	maxWait time.Duration
}

// withRetryBound returns ctx under which the transport retries a request
// at most retries times and never waits longer than maxWait before one
// (a longer Retry-After ends the retries instead).
func withRetryBound(ctx context.Context, retries int, maxWait time.Duration) context.Context {
	return context.WithValue(ctx, boundKey{}, retryBound{retries: retries, maxWait: maxWait})
}

// limits are the retries and the longest wait allowed for a request made
// with ctx: the transport's own, or a tighter bound from withRetryBound.
func (t *transport) limits(ctx context.Context) (retries int, maxWait time.Duration) {
	retries, maxWait = t.maxRetries, t.maxWait
	if b, ok := ctx.Value(boundKey{}).(retryBound); ok {
		retries, maxWait = min(retries, b.retries), min(maxWait, b.maxWait)
	}
	return retries, maxWait
}
