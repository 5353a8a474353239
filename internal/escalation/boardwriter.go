package escalation

import (
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
)

// boardInterval is the least time between two blackboard writes while a
// run goes on. Each write encodes the whole blackboard, whose size grows
// with the number of agents K; the watcher changes it on every agent start
// and finish, so writing on every change cost O(K) per event, O(K²) per
// run. A reader of .coordination sees the state at most this old; the run's
// end (flush) writes the last state at once.
const boardInterval = time.Second

// boardWriter writes the blackboard in the background, one write at a
// time, always of the latest state, and at most once per boardInterval.
// A change only marks the board dirty (it never blocks on the disk, and
// may be made under the watcher's lock); the writer encodes a snapshot
// (taking the watcher's lock through encode) and writes it, and changes
// made meanwhile coalesce into the next write.
type boardWriter struct {
	path     string
	log      *logger
	encode   func() ([]byte, error) // takes the watcher's lock itself
	interval time.Duration          // 0: boardInterval
	hold     <-chan struct{}        // nil, or no write until it is closed or a flush comes

	mu       sync.Mutex
	dirty    bool
	busy     bool
	flushing int           // flushes waiting: the writer does not pause
	wake     chan struct{} // a flush cuts the writer's pause short
	wg       sync.WaitGroup
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
	if b.wake == nil {
		b.wake = make(chan struct{}, 1)
	}
	b.busy = true
	b.wg.Add(1)
	go b.loop(b.wake)
}

func (b *boardWriter) loop(wake chan struct{}) {
	defer b.wg.Done()
	interval := b.interval
	if interval <= 0 {
		interval = boardInterval
	}
	b.mu.Lock()
	hurry := b.flushing > 0
	b.mu.Unlock()
	if b.hold != nil && !hurry {
		select {
		case <-b.hold:
		case <-wake:
		}
	}
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
		b.pause(interval, wake)
	}
}

// pause waits interval after a write, unless a flush is waiting or comes.
func (b *boardWriter) pause(interval time.Duration, wake chan struct{}) {
	b.mu.Lock()
	hurry := b.flushing > 0
	b.mu.Unlock()
	if hurry {
		return
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	}
}

// flush waits until the latest change is written, without the pause.
func (b *boardWriter) flush() {
	b.mu.Lock()
	b.flushing++
	wake := b.wake
	b.mu.Unlock()
	if wake != nil {
		select {
		case wake <- struct{}{}:
		default: // a wake-up is already waiting
		}
	}
	b.wg.Wait()
	b.mu.Lock()
	b.flushing--
	b.mu.Unlock()
}
