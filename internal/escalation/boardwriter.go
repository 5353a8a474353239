package escalation

import (
	"sync"

	"github.com/optr-dev/optr/internal/datalake"
)

// boardWriter writes the blackboard in the background, one write at a
// time and always of the latest state. The watcher changes the blackboard
// on every agent start and finish; encoding and writing it inline, under
// the watcher's lock and with an fsync each time, serialised every agent's
// launch (64 agents added more than 60 ms to a run). Now a change only
// marks the board dirty; the writer encodes a snapshot (taking the
// watcher's lock through encode) and writes it, as often as changes keep
// coming, and changes made meanwhile coalesce into the next write.
type boardWriter struct {
	path   string
	log    *logger
	encode func() ([]byte, error) // takes the watcher's lock itself

	mu    sync.Mutex
	dirty bool
	busy  bool
	wg    sync.WaitGroup
}

// touch records that the blackboard changed. It never blocks on the disk
// and may be called with the watcher's lock held.
func (b *boardWriter) touch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dirty = true
	if b.busy {
		return
	}
	b.busy = true
	b.wg.Add(1)
	go b.loop()
}

func (b *boardWriter) loop() {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		if !b.dirty {
			b.busy = false
			b.mu.Unlock()
			return
		}
		b.dirty = false
		b.mu.Unlock()
		data, err := b.encode()
		if err == nil {
			err = datalake.Replace(b.path, data)
		}
		if err != nil {
			b.log.errorf("write blackboard: %v", err)
		}
	}
}

// flush waits until the latest change is written.
func (b *boardWriter) flush() { b.wg.Wait() }
