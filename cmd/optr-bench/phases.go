package main

import (
	"fmt"
	"slices"
	"time"
)

// phases split the runs of a program that sends K requests to a fake
// which answers each L after it arrived (P1b) into where their wall time
// went, in milliseconds: from the start to the first request the fake
// received (startUp), from the first to the last (sending), and from the
// last answer (the last arrival + L) to the exit (tail). What is left of
// the wall is L itself.
type phases struct {
	startUp, sending, tail []float64
}

// add splits the run u, whose requests arrived at arrivals (in any
// order), answered after l. It refuses a run whose fake did not see
// exactly want requests: its phases would not be the run's.
func (p *phases) add(u usage, arrivals []time.Time, want int, l time.Duration) error {
	if len(arrivals) != want {
		return fmt.Errorf("the fake received %d requests in the run, want %d", len(arrivals), want)
	}
	first, last := slices.MinFunc(arrivals, time.Time.Compare), slices.MaxFunc(arrivals, time.Time.Compare)
	end := u.start.Add(u.wall)
	p.startUp = append(p.startUp, ms(first.Sub(u.start)))
	p.sending = append(p.sending, ms(last.Sub(first)))
	p.tail = append(p.tail, ms(end.Sub(last.Add(l))))
	return nil
}

// String says where the wall went: "first request after 33 (30–41) ms,
// all sent within 21 (10–28) ms, exit 15 (10–25) ms after the last
// answer".
func (p phases) String() string {
	if len(p.startUp) == 0 {
		return "no runs"
	}
	return fmt.Sprintf("first request after %s ms, all sent within %s ms, exit %s ms after the last answer",
		spreadOf(p.startUp).format("%.0f"), spreadOf(p.sending).format("%.0f"), spreadOf(p.tail).format("%.0f"))
}
