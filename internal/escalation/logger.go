package escalation

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// logTime is the time layout of log lines and watcher-log headings.
const logTime = "2006-01-02 15:04:05"

// logger writes `[YYYY-MM-DD HH:MM:SS] [optr] message` lines (architecture §4.7).
// It is safe for concurrent use; a nil writer discards.
type logger struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

func (l *logger) printf(format string, args ...any) { l.line("", format, args...) }

func (l *logger) errorf(format string, args ...any) { l.line("ERROR: ", format, args...) }

func (l *logger) line(prefix, format string, args ...any) {
	if l == nil || l.w == nil {
		return
	}
	// One line per message: text from agents or files cannot start a line
	// of its own (in Actions, a line starting with "::" is a command).
	msg := strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " | ").Replace(strings.TrimSpace(fmt.Sprintf(format, args...)))
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "[%s] [optr] %s%s\n", l.now().Format(logTime), prefix, msg)
}
