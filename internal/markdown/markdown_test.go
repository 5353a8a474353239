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
