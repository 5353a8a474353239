package cli

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/status"
)

// live shows per-agent progress on stderr while a run's agents work.
//
// On a terminal that can move the cursor (see screenOf) it keeps a table
// of the agents at the bottom of the screen, redrawn in place, and every
// other line — an agent's failure with its reason, a watcher decision, a
// retry, and whatever else is written to the CLI's stderr meanwhile (log
// lines) — is printed above the table: the table is erased, the line
// written, the table drawn again, so no row is left stale. No table row is
// wider than the terminal, since a wrapped row would throw off the count of
// rows to erase. Once every agent has finished the table stays on screen
// as it is and stderr is the plain stream again.
//
// Elsewhere it writes one plain line per state change.
type live struct {
	// out is the CLI's stderr; its mutex guards every field below, and
	// while the table is on screen out.lv is this live view.
	out    *lockedWriter
	screen screen
	now    func() time.Time
	order  []string
	state  map[string]*agentState
	// drawn is how many table rows are on screen, just above the cursor.
	drawn int
	// partial is the start of a line written to stderr while the table
	// was up, kept until its end arrives.
	partial []byte
	// settledAt is out.writes when the table settled.
	settledAt int
	stop      chan struct{}
	done      chan struct{}
}

type agentState struct {
	status  status.Status
	start   time.Time
	elapsed time.Duration
	attempt int
	reason  string
}

// newLive starts the live view of a run of agents on the CLI's stderr.
func (c *CLI) newLive(agents []string) *live {
	l := &live{out: c.stderr(), screen: c.screenOf(c.Stderr), now: c.Now, order: agents, state: map[string]*agentState{}}
	for _, a := range agents {
		l.state[a] = &agentState{status: status.Queued}
	}
	if l.screen.tty {
		l.out.mu.Lock()
		l.attach()
		l.out.mu.Unlock()
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		go l.tick()
	}
	return l
}

// attach puts the table on screen (out.mu held). A table that settled is
// drawn over again when nothing was written below it since; otherwise a
// fresh one starts below what was.
func (l *live) attach() {
	if l.out.writes != l.settledAt {
		l.drawn = 0
	}
	l.out.lv = l
	l.redraw()
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
			l.out.mu.Lock()
			if l.out.lv == l && l.running() {
				l.redraw() // the elapsed times move on
			}
			l.out.mu.Unlock()
		}
	}
}

// event records a state change; it is safe for concurrent use.
func (l *live) event(ev executor.Event) {
	l.out.mu.Lock()
	defer l.out.mu.Unlock()
	s, ok := l.state[ev.Agent]
	if !ok {
		s = &agentState{}
		l.state[ev.Agent] = s
		l.order = append(l.order, ev.Agent)
	}
	if ev.Status == status.Running && s.start.IsZero() {
		s.start = l.now()
	}
	s.status, s.attempt = ev.Status, max(ev.Attempt, s.attempt)
	if !final(ev.Status) { // running (again, after a restart) or queued
		s.elapsed, s.reason = 0, ""
	}
	if ev.Result != nil {
		s.elapsed = time.Duration(ev.Result.ExecMS) * time.Millisecond
		if ev.Result.Status != status.Succeeded && ev.Result.Error != "" {
			s.reason = progress.ShortError(ev.Result.Cause(), 200)
		}
	}
	if !l.screen.tty {
		if line := plainLine(ev, s); line != "" {
			fmt.Fprintln(l.out.w, line)
		}
		return
	}
	if l.out.lv != l {
		if final(ev.Status) {
			return
		}
		l.attach() // an agent (a spare, a restart) runs again: the table comes back
	}
	var above bytes.Buffer
	for _, line := range l.notes(ev) {
		above.WriteString(line + "\n")
	}
	_ = l.print(above.Bytes()) // a lost frame is redrawn by the next
	if !l.running() && !l.queued() {
		l.settle()
	}
}

// maxFailure bounds the line that says why an agent failed.
const maxFailure = 200

// failure says, on one line, why an agent gave no result, cause first
// (executor.Result.Cause), and what the watcher decided, with the reason
// it gave before any detail ("reassign: no spare agent to take the task
// over"); "" for a result. The whole story is in the agent's
// agent-outputs/<agent>.json and the run's .coordination/watcher-log.md.
func failure(r *executor.Result) string {
	why := r.Cause()
	if why == "" {
		return ""
	}
	if r.Decision != "" {
		note, _, _ := strings.Cut(r.DecisionNote, ": ")
		why = markdown.OneLine(why, maxFailure-60) + " · watcher: " + r.Decision
		if note != "" {
			why += " (" + note + ")"
		}
	}
	return markdown.OneLine(why, maxFailure)
}

// plainLine is the line a state change gets where the screen cannot be
// redrawn; "" for none.
func plainLine(ev executor.Event, s *agentState) string {
	if ev.Status == status.Queued {
		return ""
	}
	line := fmt.Sprintf("[optr] %s: %s", markdown.OneLine(ev.Agent, 64), ev.Status)
	if ev.Result != nil {
		line += " in " + fmtDuration(s.elapsed)
		if why := failure(ev.Result); why != "" {
			line += " — " + why
		}
	} else if ev.Attempt > 1 {
		line += fmt.Sprintf(" (attempt %d)", ev.Attempt)
	}
	return line
}

// notes are the lines a state change prints above the table: why an agent
// failed and what the watcher decided (one line), a new attempt.
func (l *live) notes(ev executor.Event) []string {
	name := markdown.OneLine(ev.Agent, 64)
	var out []string
	switch r := ev.Result; {
	case r != nil && r.Status != status.Succeeded:
		line := fmt.Sprintf("%s %s %s after %s", l.screen.paint(red, "✘"), name, r.Status, fmtDuration(time.Duration(r.ExecMS)*time.Millisecond))
		if why := failure(r); why != "" {
			line += ": " + l.screen.paint(red, why)
		}
		out = append(out, line)
	case r == nil && ev.Status == status.Running && ev.Attempt > 1:
		out = append(out, fmt.Sprintf("%s %s: attempt %d", l.screen.paint(yellow, "↻"), name, ev.Attempt))
	}
	return out
}

// write takes what is written to stderr while the table is up (out.mu
// held): whole lines go above the table, the start of a line waits for
// its end.
func (l *live) write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	i := bytes.LastIndexByte(l.partial, '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := l.partial[:i+1]
	l.partial = append([]byte(nil), l.partial[i+1:]...)
	if err := l.print(lines); err != nil {
		return 0, err
	}
	return len(p), nil
}

// print erases the table, writes lines (whole lines, possibly none) and
// draws the table again, in one write.
func (l *live) print(lines []byte) error {
	var b bytes.Buffer
	l.erase(&b)
	b.Write(lines)
	l.draw(&b)
	_, err := l.out.w.Write(b.Bytes())
	return err
}

func (l *live) redraw() { _ = l.print(nil) } // a lost frame is redrawn by the next

// erase moves the cursor up over the table and clears to the end of the
// screen.
func (l *live) erase(b *bytes.Buffer) {
	if l.drawn > 0 {
		fmt.Fprintf(b, "\r\x1b[%dA\x1b[J", l.drawn)
		l.drawn = 0
	}
}

// draw appends the table's rows, each cut to the terminal's width.
func (l *live) draw(b *bytes.Buffer) {
	width := l.screen.width()
	for _, name := range l.order {
		s := l.state[name]
		el := s.elapsed
		if el == 0 && !s.start.IsZero() && !final(s.status) {
			el = l.now().Sub(s.start)
		}
		mark, colour := "…", yellow
		switch {
		case s.status == status.Succeeded:
			mark, colour = "✔", green
		case final(s.status):
			mark, colour = "✘", red
		case s.status == status.Queued:
			colour = ""
		}
		text := fmt.Sprintf("%-20s %-10s %8s", markdown.OneLine(name, 64), s.status, fmtDuration(el))
		if s.attempt > 1 {
			text += fmt.Sprintf(" (attempt %d)", s.attempt)
		}
		if s.reason != "" {
			text += "  " + s.reason
		}
		// " ✔ " takes three columns; the last column stays free so the
		// cursor never wraps.
		text = runewidth.Truncate(text, max(width-4, 10), "…")
		fmt.Fprintf(b, " %s %s\n", l.screen.paint(colour, mark), text)
		l.drawn++
	}
}

// settle leaves the finished table on screen and gives stderr back
// (out.mu held).
func (l *live) settle() {
	if l.out.lv != l {
		return
	}
	if len(l.partial) > 0 {
		_ = l.print(append(l.partial, '\n'))
		l.partial = nil
	}
	l.out.lv, l.settledAt = nil, l.out.writes
}

func (l *live) running() bool {
	for _, s := range l.state {
		if s.status == status.Running {
			return true
		}
	}
	return false
}

func (l *live) queued() bool {
	for _, s := range l.state {
		if s.status == status.Queued {
			return true
		}
	}
	return false
}

func final(s status.Status) bool {
	return s != status.Queued && s != status.Running
}

// close stops the redraw loop after one last frame and gives stderr back.
func (l *live) close() {
	if !l.screen.tty {
		return
	}
	close(l.stop)
	<-l.done
	l.out.mu.Lock()
	defer l.out.mu.Unlock()
	if l.out.lv == l {
		l.redraw()
		l.settle()
	}
}

func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
