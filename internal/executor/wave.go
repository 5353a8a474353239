package executor

import (
	"sync"
	"sync/atomic"
)

// wave is the tasks Run starts at once: it calls launched once each of
// them sent its agent's work off (agent.Request.Sent) or ended, or when
// done is called, whichever comes first.
type wave struct {
	size     int
	left     atomic.Int64
	launched func() // once
}

func newWave(size int, launched func()) *wave {
	w := &wave{size: size}
	if launched != nil {
		w.launched = sync.OnceFunc(launched)
	}
	w.left.Store(int64(size))
	if size == 0 {
		w.done()
	}
	return w
}

// member returns what task i calls when its work is sent: once it counts
// it out of the wave, later calls do nothing. A task outside the wave
// (one that waited for a slot) counts for nothing.
func (w *wave) member(i int) func() {
	if i >= w.size {
		return func() {}
	}
	return sync.OnceFunc(func() {
		if w.left.Add(-1) == 0 {
			w.done()
		}
	})
}

// done calls launched, unless it was called.
func (w *wave) done() {
	if w.launched != nil {
		w.launched()
	}
}
