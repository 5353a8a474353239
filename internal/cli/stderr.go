package cli

import (
	"io"
	"sync"
)

// lockedWriter is the CLI's stderr behind one lock shared by every writer:
// the live display, the watcher's log and diagnostics all write to it from
// different goroutines, and each line must arrive whole. While the live
// table is on screen, lines written here are printed above it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// lv is the live table on screen, nil when there is none.
	lv *live
	// writes counts the writes that went straight to w.
	writes int
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lv != nil {
		return l.lv.write(p)
	}
	l.writes++
	return l.w.Write(p)
}

// errOut returns the CLI's stderr behind one lock shared by every writer.
func (c *CLI) errOut() io.Writer { return c.stderr() }

func (c *CLI) stderr() *lockedWriter {
	c.errOnce.Do(func() { c.errW = &lockedWriter{w: c.Stderr} })
	return c.errW
}
