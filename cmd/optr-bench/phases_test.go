package main

import (
	"strings"
	"testing"
	"time"
)

// A run's wall splits into the time to its first request, the time over
// which it sent them, L, and the time from the last answer to its exit;
// a run whose fake saw another number of requests is refused.
func TestPhasesSplitTheWall(t *testing.T) {
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	l := time.Second
	// Requests arrive at 40, 55 and 52 ms; the last answer leaves at
	// 1055 ms and the run ends at 1100 ms.
	u := usage{start: start, wall: 1100 * time.Millisecond}
	var p phases
	if err := p.add(u, []time.Time{at(40), at(55), at(52)}, 3, l); err != nil {
		t.Fatal(err)
	}
	if p.startUp[0] != 40 || p.sending[0] != 15 || p.tail[0] != 45 {
		t.Errorf("phases = start-up %v, sending %v, tail %v; want 40, 15, 45", p.startUp, p.sending, p.tail)
	}
	want := "first request after 40 (40–40) ms, all sent within 15 (15–15) ms, exit 45 (45–45) ms after the last answer"
	if got := p.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	err := p.add(u, []time.Time{at(40)}, 3, l)
	if err == nil || !strings.Contains(err.Error(), "received 1 requests") {
		t.Errorf("add with 1 of 3 requests = %v, want it refused", err)
	}
	if len(p.startUp) != 1 {
		t.Errorf("a refused run was kept: %d runs", len(p.startUp))
	}
}
