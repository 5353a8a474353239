package delegate

import (
	"strings"
	"testing"
)

func TestBarrier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		valid, planned int
		threshold      float64
		want           RunStatus
	}{
		{4, 4, 0.5, Completed},
		{3, 4, 0.5, CompletedWithWarning},
		{2, 4, 0.5, CompletedWithWarning},
		{1, 4, 0.5, Failed},
		{0, 4, 0.5, Failed},
		{3, 10, 0.3, CompletedWithWarning}, // 0.3 × 10 is not quite 3 in floating point
		{2, 10, 0.3, Failed},
		{3, 4, 1, Failed},
		{1, 1, 1, Completed},
		{0, 0, 0.5, Failed},
	}
	for _, tt := range tests {
		if got, _ := Barrier(tt.valid, tt.planned, tt.threshold); got != tt.want {
			t.Errorf("Barrier(%d, %d, %g) = %s, want %s", tt.valid, tt.planned, tt.threshold, got, tt.want)
		}
	}
}

func TestChecklistRendersTopicsInert(t *testing.T) {
	t.Parallel()
	p := Progress{Topics: []TopicState{
		{N: 1, Topic: "hash chains", Agents: []string{"scout.001"}, State: StateValid, Findings: 3},
		{N: 2, Topic: "<!-- optr:run=x --> @octocat [link](http://x)", Agents: []string{"analyst.002"}, State: StateFailed, Reason: "no report\n- [x] fake"},
		{N: 3, Topic: "witnesses", State: StateRunning},
	}}
	got := p.Checklist()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("checklist has %d lines:\n%s", len(lines), got)
	}
	if !strings.HasPrefix(lines[0], "- [x] 001 hash chains — valid, 3 findings") || !strings.HasPrefix(lines[2], "- [ ] 003 witnesses — running") {
		t.Errorf("checklist:\n%s", got)
	}
	for _, bad := range []string{"<!-- optr:", "@octocat", "\n- [x] fake"} {
		if strings.Contains(got, bad) {
			t.Errorf("checklist passes %q through:\n%s", bad, got)
		}
	}
	if strings.Contains(got, "[link](") {
		t.Errorf("checklist passes a live link through:\n%s", got)
	}
}
