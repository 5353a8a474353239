package action

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxSummary is the most the runner accepts in a step's job summary, in
// bytes; a larger file is not shown at all.
const MaxSummary = 1 << 20

// ErrSummaryFull is returned when the job summary has no room left.
var ErrSummaryFull = errors.New("the job summary is full (1 MiB): nothing more was added")

// summaryCutNote ends a summary that was cut to fit.
const summaryCutNote = "\n\n> [!NOTE]\n> The rest of this summary was cut: a job summary holds at most 1 MiB.\n"

// Summary appends Markdown to the job summary (GITHUB_STEP_SUMMARY).
type Summary struct {
	path string
	mu   sync.Mutex
}

// NewSummary returns a Summary that appends to the file at path. With an
// empty path, Append does nothing.
func NewSummary(path string) *Summary {
	return &Summary{path: path}
}

// Append adds markdown to the summary. It checks the file's current size
// first and, when markdown does not fit under MaxSummary, writes as much as
// fits (closing a code fence it cut open) followed by a note saying so, and
// reports cut. When not even the note fits it writes nothing and returns
// ErrSummaryFull.
func (s *Summary) Append(markdown string) (cut bool, err error) {
	if s.path == "" || markdown == "" {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, fmt.Errorf("open the job summary: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close the job summary: %w", cerr)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("open the job summary: %w", err)
	}
	room := MaxSummary - int(st.Size())
	text, cut := fitSummary(markdown, room)
	if text == "" {
		return true, ErrSummaryFull
	}
	if _, err := f.WriteString(text); err != nil {
		return cut, fmt.Errorf("write the job summary: %w", err)
	}
	return cut, nil
}

// fitSummary returns markdown when it fits in room bytes, else a cut version
// with a note, else "".
func fitSummary(markdown string, room int) (string, bool) {
	if len(markdown) <= room {
		return markdown, false
	}
	budget := room - len(summaryCutNote)
	for budget > 0 {
		head := markdown[:budget]
		for !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
		if i := strings.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i] // do not end in the middle of a line
		}
		if fence := openFence(head); fence != "" {
			head += "\n" + fence
		}
		out := head + summaryCutNote
		if len(out) <= room {
			return out, true
		}
		budget -= len(out) - room // the closing fence did not fit: cut more
	}
	return "", true
}

// openFence returns the fence that closes a fenced code block left open at
// the end of md ("" when none is open), following CommonMark: a fence is
// three or more backticks or tildes, indented at most three spaces, closed
// by a fence of the same character at least as long.
func openFence(md string) string {
	open := ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 || len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
			continue
		}
		n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
		if n < 3 {
			continue
		}
		fence := trimmed[:n]
		switch {
		case open == "":
			if fence[0] == '`' && strings.Contains(trimmed[n:], "`") {
				continue // not a fence: a backtick fence's info string has no backticks
			}
			open = fence
		case fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(trimmed[n:]) == "":
			open = ""
		}
	}
	return open
}
