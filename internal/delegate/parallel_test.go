package delegate

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// TestSpecialistsRunInParallel: each specialist waits until all four have
// started, so a serial run would fail every topic; the progress listener
// hears the plan first, every topic queued.
func TestSpecialistsRunInParallel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	meet := t.TempDir()
	h.coordinator("planner", commandPlan("a", "b", "c", "d"))
	var agents []string
	for _, n := range []string{"s1", "s2", "s3", "s4"} {
		h.specialist(n, "good", "RENDEZVOUS", meet, "RENDEZVOUS_N", "4")
		agents = append(agents, n)
	}
	in := h.input(pipeline("planner", agents...))
	var mu sync.Mutex
	var seen []Progress
	in.OnProgress = func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, p)
	}
	var events int
	in.Exec.OnEvent = func(executor.Event) {
		mu.Lock()
		defer mu.Unlock()
		events++
	}
	o, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != status.Completed {
		t.Fatalf("status %s: %s; failures %+v", o.Status, o.Message, o.Topics)
	}
	started, _ := filepath.Glob(filepath.Join(meet, "*"))
	if len(started) != 4 {
		t.Fatalf("%d specialists met", len(started))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 || events == 0 {
		t.Fatalf("%d progress reports, %d events", len(seen), events)
	}
	for _, ts := range seen[0].Topics {
		if ts.State != StateQueued {
			t.Errorf("first progress: topic %d is %s, want queued", ts.N, ts.State)
		}
	}
	for _, ts := range seen[len(seen)-1].Topics {
		if ts.State != StateValid {
			t.Errorf("last progress: topic %d is %s, want valid", ts.N, ts.State)
		}
	}
}
