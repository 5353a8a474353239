package gitdata

import (
	"context"
	"sync/atomic"
)

// countKey marks a context whose requests are counted.
type countKey struct{}

// WithRequestCount returns ctx under which a Store counts in n every
// request it sends, retries included, so that one operation can report its
// own requests while others run concurrently on the same store.
func WithRequestCount(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, countKey{}, n), n
}

// CountRequest adds one to the count ctx carries, if any. A Store calls it
// for each request it sends.
func CountRequest(ctx context.Context) {
	if n, ok := ctx.Value(countKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
