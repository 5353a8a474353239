package clock

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first. It
// returns nil after a full wait, else the context's cause (its error
// when no cause was given). A d of zero or less only reports whether ctx
// is already done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
