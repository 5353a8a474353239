package cli

import (
	"strings"
	"testing"
	"time"
)

func TestDurationValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"60", time.Minute, ""},
		{"600", 10 * time.Minute, ""},
		{"1.5", 1500 * time.Millisecond, ""},
		{"0", 0, ""},
		{"30s", 30 * time.Second, ""},
		{"5m", 5 * time.Minute, ""},
		{"1e300", 0, "not a usable number of seconds"},
		{"NaN", 0, "not a usable number of seconds"},
		{"soon", 0, `"soon" is neither a duration`},
		{"", 0, "neither a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			var got time.Duration
			v := newDurationValue(time.Hour, &got)
			err := v.Set(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Set(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Set(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// The seed's handler takes bare seconds: optr handle must too.
func TestHandleTakesBareSeconds(t *testing.T) {
	t.Chdir(t.TempDir())
	if got := optr(t, "handle", "--interval", "60", "--timeout", "600"); got.code != 0 {
		t.Fatalf("handle --interval 60 --timeout 600: exit %d\n%s", got.code, got.stderr)
	}
	got := optr(t, "handle", "--interval", "soon")
	if got.code != 2 || !strings.Contains(got.stderr, `"soon" is neither a duration`) {
		t.Fatalf("handle --interval soon: exit %d\n%s", got.code, got.stderr)
	}
}
