package escalation

import "sync"

// boardWriter writes the blackboard in the background, always the latest
// state and one write at a time. The watcher updates the blackboard on
// every agent start and finish; writing it inline, under the watcher's
// lock and with an fsync each time, serialised every agent's launch on the
// disk (64 agents added more than 60 ms to a run). Snapshots put while a
// write is under way replace each other, so only the newest is written.
type boardWriter struct {
	path string
	log  *logger

	mu      sync.Mutex
	pending []byte
	busy    bool
	wg      sync.WaitGroup
}

// put queues data as the blackboard's next content.
func (b *boardWriter) put(data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = data
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
		data := b.pending
		b.pending = nil
		if data == nil {
			b.busy = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		if err := writeAtomic(b.path, data); err != nil {
			b.log.errorf("write blackboard: %v", err)
		}
	}
}

// flush waits until every queued state is written.
func (b *boardWriter) flush() { b.wg.Wait() }
