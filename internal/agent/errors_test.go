package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

func TestClassOf(t *testing.T) {
	t.Parallel()
	rateLimited := &Error{Class: Transient, Reason: "rate_limited", Status: 429, RetryAfter: 2 * time.Second}
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, ""},
		{"typed, wrapped", fmt.Errorf("attempt 2: %w", rateLimited), Transient},
		{"fatal", Errorf(Fatal, "unauthorized", "bad key"), Fatal},
		{"cancelled run", fmt.Errorf("run: %w", context.Canceled), Fatal},
		{"deadline", context.DeadlineExceeded, Transient},
		{"network", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, Transient},
		{"anything else", errors.New("boom"), Systematic},
	}
	for _, tt := range tests {
		if got := ClassOf(tt.err); got != tt.want {
			t.Errorf("%s: ClassOf = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := RetryAfterOf(fmt.Errorf("x: %w", rateLimited)); got != 2*time.Second {
		t.Errorf("RetryAfterOf = %s, want 2s", got)
	}
	if got := rateLimited.Error(); got != "transient rate_limited (HTTP 429)" {
		t.Errorf("Error() = %q", got)
	}
}
