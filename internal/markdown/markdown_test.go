package markdown

import (
	"strings"
	"testing"
)

func TestFenceCannotBeClosedByContent(t *testing.T) {
	t.Parallel()
	got := Fence("a ``` b ````` c")
	if !strings.HasPrefix(got, "``````\n") {
		t.Fatalf("fence too short: %q", got)
	}
}

func TestCollapse(t *testing.T) {
	t.Parallel()
	got := Collapse("π*", strings.Repeat("a", 100), 10, "result.md")
	if !strings.Contains(got, "<details><summary>π*</summary>") || strings.Contains(got, strings.Repeat("a", 11)) || !strings.Contains(got, "result.md") {
		t.Fatalf("Collapse = %q", got)
	}
}

func TestShorten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"longer", 5, "long…"},
		{"ééééé", 3, "éé…"},
		{"a\nb c", 10, "a\nb c"}, // kept as it is: OneLine folds
		{"abc", 0, ""},
		{"", 0, ""},
	}
	for _, tt := range tests {
		if got := Shorten(tt.s, tt.n); got != tt.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
