package delegate

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

func TestBarrier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		valid, planned int
		threshold      float64
		want           status.Status
	}{
		{4, 4, 0.5, status.Completed},
		{3, 4, 0.5, status.Completed}, // with a warning
		{2, 4, 0.5, status.Completed}, // with a warning
		{1, 4, 0.5, status.Failed},
		{0, 4, 0.5, status.Failed},
		{3, 10, 0.3, status.Completed}, // 0.3 × 10 is not quite 3 in floating point
		{2, 10, 0.3, status.Failed},
		{3, 4, 1, status.Failed},
		{1, 1, 1, status.Completed},
		{0, 0, 0.5, status.Failed},
	}
	for _, tt := range tests {
		if got, _ := Barrier(tt.valid, tt.planned, tt.threshold); got != tt.want {
			t.Errorf("Barrier(%d, %d, %g) = %s, want %s", tt.valid, tt.planned, tt.threshold, got, tt.want)
		}
	}
}

// The specialists' fan-out can still succeed while enough topics are not
// lost to reach the threshold: a topic is lost once every specialist run
// of it failed.
func TestThresholdOutlook(t *testing.T) {
	t.Parallel()
	const f, r, q, s = status.Failed, status.Running, status.Queued, status.Succeeded
	eight := []int{0, 1, 2, 3, 4, 5, 6, 7}
	tests := []struct {
		name    string
		topicOf []int
		tasks   []status.Status
		open    bool
		why     string
	}{
		{"three of eight lost", eight, []status.Status{f, f, f, r, q, q, q, q}, true, "3 of 8 topics have failed (3 of 8 specialist runs failed, 1 running, 4 queued), so at most 5 of 8 reports can be valid (62.5%)"},
		{"four of eight lost: the threshold is still reachable", eight, []status.Status{f, f, f, f, s, r, q, q}, true, "at most 4 of 8 reports can be valid (50%)"},
		{"five of eight lost", eight, []status.Status{f, f, f, f, f, s, r, q}, false, "at most 3 of 8 reports can be valid (37.5%) against the threshold of 50%"},
		{"a topic with a candidate left is not lost", []int{0, 0, 1, 1}, []status.Status{f, r, f, q}, true, "0 of 2 topics have failed"},
		{"a topic whose candidates all failed is", []int{0, 0, 1, 1}, []status.Status{f, f, f, q}, true, "1 of 2 topics have failed"},
	}
	for _, tt := range tests {
		o := thresholdOutlook(tt.topicOf, tt.topicOf[len(tt.topicOf)-1]+1, 0.5)(executor.Standing{Tasks: tt.tasks})
		if o.Open != tt.open || !strings.Contains(o.Why, tt.why) {
			t.Errorf("%s: open %v (%s), want %v (%s)", tt.name, o.Open, o.Why, tt.open, tt.why)
		}
	}
}

// A run the watcher aborted says it failed, and why, and never that it
// completes with a warning.
func TestAbortedBarrierSaysFailed(t *testing.T) {
	t.Parallel()
	valid := TopicResult{Valid: true}
	r := &runner{o: &Outcome{Threshold: 0.5, Topics: []TopicResult{valid, valid, {}, {}}}}
	r.barrier(&escalation.AbortError{Reason: "at most 1 of 4 reports can be valid"})
	if o := r.o; o.Status != status.Failed || !strings.Contains(o.Message, "the watcher aborted the run: at most 1 of 4") || strings.Contains(o.Message, "warning") {
		t.Errorf("status %s, message %q", o.Status, o.Message)
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
