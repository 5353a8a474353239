package check

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"valid-json", true},
		{"no.secrets_2", true},
		{"9lives", true},
		{strings.Repeat("a", MaxNameLen), true},
		{strings.Repeat("a", MaxNameLen+1), false},
		{"", false},
		{"Valid-JSON", false},
		{"has space", false},
		{"-leading-dash", false},
		{".hidden", false},
		{"../escape", false},
		{"a/b", false},
		{"naïve", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ValidateName(tt.name)
			if (err == nil) != tt.ok {
				t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
		})
	}
}
