package cli

import (
	"io"
	"sync"
)

// lockedWriter serialises writes to one stream: the live display, the
// watcher's log and diagnostics all write to stderr from different
// goroutines, and each line must arrive whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// errOut returns the CLI's stderr behind one lock shared by every writer.
func (c *CLI) errOut() io.Writer {
	c.errOnce.Do(func() { c.errW = &lockedWriter{w: c.Stderr} })
	return c.errW
}
