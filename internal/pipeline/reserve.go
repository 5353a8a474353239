package pipeline

import (
	"sync"

	"github.com/optr-dev/optr/internal/datalake"
)

// reservations makes each agent's result file ahead of its write
// (datalake.Run.Reserve) once the agent sent its work off and the agents
// started with it sent theirs: allocating 64 inodes while requests are
// still being sent would delay the last of them, and after the last
// answer it would delay the run's end; in between, it overlaps the wait
// for the answers. Every reservation is made before the executor's Run
// returns (Launched comes at the latest then), so before the run's files
// are listed, which frees those never written.
type reservations struct {
	run *datalake.Run

	mu      sync.Mutex
	out     bool     // the first wave's work is out
	waiting []string // agents that sent before it was
	sunk    map[string]bool
}

func newReservations(run *datalake.Run) *reservations {
	return &reservations{run: run, sunk: map[string]bool{}}
}

// sent reserves the file of result name, or queues it until launched.
func (r *reservations) sent(name string) {
	r.mu.Lock()
	if !r.out {
		r.waiting = append(r.waiting, name)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	r.run.Reserve(resultFile(name))
}

// launched reserves the files of the results that sent until now and
// have not been written yet.
func (r *reservations) launched() {
	r.mu.Lock()
	r.out = true
	var names []string
	for _, n := range r.waiting {
		if !r.sunk[n] {
			names = append(names, n)
		}
	}
	r.waiting = nil
	r.mu.Unlock()
	for _, n := range names {
		r.run.Reserve(resultFile(n))
	}
}

// writing notes that the file of result name is being written: a
// reservation still queued for it would go unused.
func (r *reservations) writing(name string) {
	r.mu.Lock()
	r.sunk[name] = true
	r.mu.Unlock()
}
