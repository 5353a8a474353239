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

// Bidirectional overrides and isolates and zero-width characters never
// reach a line OneLine shapes: a name cannot show itself reversed.
func TestOneLineDropsFormatCharacters(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"good\u202Edoog":         "gooddoog",
		"\u2066evil\u2069 agent": "evil agent",
		"zero\u200Bwidth\uFEFF":  "zerowidth",
		"\u061Carabic mark":      "arabic mark",
		"plain text stays as is": "plain text stays as is",
	} {
		if got := OneLine(in, 64); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
