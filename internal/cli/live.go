package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/executor"
)

// live shows per-agent progress on stderr: redrawn in place on a terminal,
// one plain line per state change otherwise.
type live struct {
	w     io.Writer
	tty   bool
	now   func() time.Time
	mu    sync.Mutex
	order []string
	state map[string]*agentState
	drawn int
	stop  chan struct{}
	done  chan struct{}
}

type agentState struct {
	status  executor.Status
	start   time.Time
	elapsed time.Duration
	attempt int
}

func newLive(w io.Writer, tty bool, now func() time.Time, agents []string) *live {
	l := &live{w: w, tty: tty, now: now, order: agents, state: map[string]*agentState{}}
	for _, a := range agents {
		l.state[a] = &agentState{status: executor.Queued}
	}
	if tty {
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		go l.tick()
	}
	return l
}

func (l *live) tick() {
	defer close(l.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.mu.Lock()
			l.redraw()
			l.mu.Unlock()
		}
	}
}

// event records a state change; it is safe for concurrent use.
func (l *live) event(ev executor.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.state[ev.Agent]
	if !ok {
		s = &agentState{}
		l.state[ev.Agent] = s
		l.order = append(l.order, ev.Agent)
	}
	if ev.Status == executor.Running && s.start.IsZero() {
		s.start = l.now()
	}
	s.status, s.attempt = ev.Status, max(ev.Attempt, s.attempt)
	if ev.Result != nil {
		s.elapsed = time.Duration(ev.Result.ExecMS) * time.Millisecond
	}
	if l.tty {
		l.redraw()
		return
	}
	if ev.Status == executor.Queued {
		return
	}
	line := fmt.Sprintf("[optr] %s: %s", ev.Agent, ev.Status)
	if ev.Result != nil {
		line += " in " + fmtDuration(s.elapsed)
		if ev.Result.Error != "" {
			line += " — " + comment.OneLine(ev.Result.Error, 240)
		}
		if ev.Result.Decision != "" {
			line += fmt.Sprintf(" [watcher: %s; %s]", ev.Result.Decision, ev.Result.DecisionNote)
		}
	} else if ev.Attempt > 1 {
		line += fmt.Sprintf(" (attempt %d)", ev.Attempt)
	}
	fmt.Fprintln(l.w, line)
}

func (l *live) redraw() {
	var b strings.Builder
	if l.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", l.drawn)
	}
	for _, name := range l.order {
		s := l.state[name]
		el := s.elapsed
		if el == 0 && !s.start.IsZero() {
			el = l.now().Sub(s.start)
		}
		mark := map[executor.Status]string{executor.Succeeded: "✔", executor.Failed: "✘", executor.Escalated: "✘", executor.Cancelled: "✘"}[s.status]
		if mark == "" {
			mark = "…"
		}
		extra := ""
		if s.attempt > 1 {
			extra = fmt.Sprintf(" (attempt %d)", s.attempt)
		}
		fmt.Fprintf(&b, "\x1b[2K %s %-20s %-10s %8s%s\n", mark, name, s.status, fmtDuration(el), extra)
	}
	l.drawn = len(l.order)
	io.WriteString(l.w, b.String())
}

// close stops the redraw loop after one last frame.
func (l *live) close() {
	if !l.tty {
		return
	}
	close(l.stop)
	<-l.done
	l.mu.Lock()
	l.redraw()
	l.mu.Unlock()
}

func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
