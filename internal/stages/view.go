package stages

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// Line is one stage as the checklist shows it.
type Line struct {
	Stage    string
	State    State
	Attempt  int
	Restarts int
	Elapsed  time.Duration
	// Error is the last crash or failure (untrusted).
	Error string
}

// Board folds Events into the live stage checklist. It is safe for
// concurrent use.
type Board struct {
	mu    sync.Mutex
	lines []Line
}

// NewBoard returns a board with every stage ready.
func NewBoard(stages []string) *Board {
	b := &Board{lines: make([]Line, len(stages))}
	for i, s := range stages {
		b.lines[i] = Line{Stage: s, State: StateReady}
	}
	return b
}

// Apply records e.
func (b *Board) Apply(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.Index < 0 || e.Index >= len(b.lines) {
		return
	}
	l := &b.lines[e.Index]
	l.State, l.Attempt, l.Restarts, l.Elapsed = e.State, e.Attempt, e.Restarts, e.Elapsed
	if e.Error != "" {
		l.Error = e.Error
	}
}

// Lines returns the stages as they are now.
func (b *Board) Lines() []Line {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Line(nil), b.lines...)
}

// Lines returns the stages as the run left them.
func (o *Outcome) Lines() []Line {
	out := make([]Line, len(o.Stages))
	for i, r := range o.Stages {
		l := Line{Stage: r.Stage, Restarts: r.Restarts, Attempt: len(r.Attempts), Elapsed: time.Duration(r.ExecMS) * time.Millisecond}
		switch r.Status {
		case status.HandedOff:
			l.State = StateHandedOff
		case status.Completed:
			l.State = StateDone
		case status.NotStarted:
			l.State = StateReady
		default:
			l.State, l.Error = StateFailed, r.Error
		}
		out[i] = l
	}
	return out
}

// note says in words what a line's state means.
func note(l Line) string {
	var parts []string
	switch l.State {
	case StateReady:
		parts = append(parts, "ready")
	case StateWorking:
		parts = append(parts, fmt.Sprintf("working (attempt %d)", l.Attempt))
	case StateCrashed:
		parts = append(parts, fmt.Sprintf("crashed, restarting (restart %d)", l.Restarts))
	default:
		parts = append(parts, string(l.State))
	}
	if l.Restarts > 0 && l.State != StateCrashed {
		parts = append(parts, fmt.Sprintf("crashed and restarted %d×", l.Restarts))
	}
	if l.Elapsed > 0 {
		parts = append(parts, l.Elapsed.Round(100*time.Millisecond).String())
	}
	return strings.Join(parts, " · ")
}

// Checklist renders the stages as a Markdown task list for the progress
// comment: ticked once a stage handed off. Errors are untrusted and shown
// inline-escaped.
func Checklist(lines []Line) string {
	var b strings.Builder
	for i, l := range lines {
		box := " "
		if l.State == StateHandedOff || l.State == StateDone {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %d. **%s** — %s", box, i+1, markdown.Inline(l.Stage, 64), note(l))
		if l.State == StateFailed || l.State == StateCrashed {
			if e := firstLine(l.Error); e != "" {
				fmt.Fprintf(&b, ": %s", markdown.Inline(e, 300))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Text renders the stages for a terminal, one line each.
func Text(lines []Line) string {
	width := 0
	for _, l := range lines {
		width = max(width, len(l.Stage))
	}
	var b strings.Builder
	for i, l := range lines {
		mark := "·"
		switch l.State {
		case StateHandedOff, StateDone:
			mark = "✓"
		case StateWorking:
			mark = "▸"
		case StateCrashed:
			mark = "↻"
		case StateFailed:
			mark = "✗"
		}
		fmt.Fprintf(&b, "%s %d. %-*s  %s", mark, i+1, width, markdown.OneLine(l.Stage, 64), note(l))
		if l.State == StateFailed {
			if e := firstLine(l.Error); e != "" {
				fmt.Fprintf(&b, ": %s", markdown.OneLine(e, 200))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Diagram renders the stage chain as a Mermaid flowchart (without the code
// fence) for the step summary: one node per stage with its state, a
// HANDOFF edge between stages that handed off (dotted to stages that never
// started), a loop on every stage that was restarted, and the result at
// the end. Stage names are config slugs; labels are quoted all the same.
func Diagram(lines []Line) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for i, l := range lines {
		fmt.Fprintf(&b, "  s%d[%s]\n", i, quote(fmt.Sprintf("%d. %s · %s", i+1, l.Stage, l.State)))
		if l.Restarts > 0 {
			fmt.Fprintf(&b, "  s%d -.->|%s| s%d\n", i, quote(fmt.Sprintf("crashed, restarted %d×", l.Restarts)), i)
		}
	}
	for i := 1; i < len(lines); i++ {
		if lines[i-1].State == StateHandedOff {
			fmt.Fprintf(&b, "  s%d -->|\"HANDOFF\"| s%d\n", i-1, i)
		} else {
			fmt.Fprintf(&b, "  s%d -.-> s%d\n", i-1, i)
		}
	}
	last := len(lines) - 1
	switch {
	case last < 0:
	case lines[last].State == StateDone:
		fmt.Fprintf(&b, "  s%d --> result[[\"result.md\"]]\n", last)
	default:
		for i, l := range lines {
			if l.State == StateFailed {
				fmt.Fprintf(&b, "  s%d --> esc{{\"escalated\"}}\n", i)
				break
			}
		}
	}
	return b.String()
}

// quote makes s a quoted Mermaid label: quotes and the characters Mermaid
// or Markdown would read are dropped.
func quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("\"<>&`|[]{}();#%\\", r) {
			return -1
		}
		return r
	}, markdown.OneLine(s, 80))
	return "\"" + s + "\""
}
