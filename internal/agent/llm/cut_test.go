package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutIntent(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab", 500)
	tests := []struct {
		name   string
		intent string
		budget int
		// keep is the prefix of intent that must survive; cut says whether
		// the marker must be there.
		keep string
		cut  bool
	}{
		{"fits", "short", 100, "short", false},
		{"exactly fits", "12345", 5, "12345", false},
		{"cut", long, 200, long[:100], true},
		{"multibyte boundary", strings.Repeat("é", 300), 200, "é", true},
		{"budget below the marker", long, 10, "", true},
		{"negative budget", long, -50, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := cutIntent(tt.intent, tt.budget)
			if !strings.HasPrefix(got, tt.keep) {
				t.Errorf("cutIntent kept %q, want it to start with %q", got, tt.keep)
			}
			if marked := strings.Contains(got, "[optr: the intent was cut here"); marked != tt.cut {
				t.Errorf("marker present = %v, want %v: %q", marked, tt.cut, got)
			}
			if !utf8.ValidString(got) {
				t.Errorf("cutIntent split a character: %q", got)
			}
			if tt.cut && tt.budget > 120 && len(got) > tt.budget {
				t.Errorf("cutIntent returned %d bytes, over the budget of %d", len(got), tt.budget)
			}
		})
	}
}
