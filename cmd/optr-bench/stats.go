package main

import (
	"fmt"
	"slices"
)

// spread is a figure measured several times: its median, min and max.
type spread struct{ med, lo, hi float64 }

// spreadOf summarises xs (at least one value).
func spreadOf(xs []float64) spread {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{med: med, lo: s[0], hi: s[n-1]}
}

// String prints the median with the range: "1.012 (1.004–1.031)".
func (s spread) String() string { return s.format("%.3f") }

func (s spread) format(verb string) string {
	return fmt.Sprintf(verb+" ("+verb+"–"+verb+")", s.med, s.lo, s.hi)
}
