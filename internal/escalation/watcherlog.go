package escalation

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// RecentEntries is how many watcher-log entries the handler reads.
const RecentEntries = 20

// maxLogTail bounds how much of the end of watcher-log.md is read.
const maxLogTail = 1 << 20

// LogEntry is one entry of watcher-log.md: a "## " heading and the lines
// under it up to the next heading.
type LogEntry struct {
	// Heading is the heading line without "## ".
	Heading string
	// Text is the lines under the heading, trimmed.
	Text string
	// Fields holds the `**Key:** value` lines, keys lower-cased.
	Fields map[string]string
}

// ParseLog splits watcher-log.md into its entries. Text before the first
// heading (a title, say) is not an entry. It never fails.
func ParseLog(text string) []LogEntry {
	var entries []LogEntry
	var cur *LogEntry
	var lines []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(strings.Join(lines, "\n"))
			entries = append(entries, *cur)
		}
		lines = lines[:0]
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, "## ") {
			flush()
			cur = &LogEntry{Heading: strings.TrimSpace(line[3:]), Fields: map[string]string{}}
			continue
		}
		if cur == nil {
			continue
		}
		lines = append(lines, line)
		if m := fieldRE.FindStringSubmatch(line); m != nil {
			key := strings.ToLower(strings.TrimSpace(m[1]))
			if _, seen := cur.Fields[key]; !seen {
				cur.Fields[key] = m[2]
			}
		}
	}
	flush()
	return entries
}

// ReadLog returns the last n entries of the watcher log at path (a missing
// file has none). Only the last MiB of a long log is read.
func ReadLog(path string, n int) ([]LogEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read watcher log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read watcher log: %w", err)
	}
	cut := st.Size() > maxLogTail
	if cut {
		if _, err := f.Seek(-maxLogTail, io.SeekEnd); err != nil {
			return nil, fmt.Errorf("read watcher log: %w", err)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLogTail))
	if err != nil {
		return nil, fmt.Errorf("read watcher log: %w", err)
	}
	text := string(data)
	if cut { // the first entry was cut: start at the next heading
		i := strings.Index(text, "\n## ")
		if i < 0 {
			return nil, nil
		}
		text = text[i+1:]
	}
	entries := ParseLog(text)
	if len(entries) > n {
		entries = entries[len(entries)-n:]
	}
	return entries, nil
}

// renderLogEntry is the watcher-log entry for e.
func renderLogEntry(e *Escalation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## [%s] Escalation %s: %s\n", e.Time.Format(logTime), e.ID, e.Decision.Action)
	fmt.Fprintf(&b, "**Trigger:** %s\n", e.Trigger)
	if e.Agent != "" {
		fmt.Fprintf(&b, "**Agent:** %s\n", e.Agent)
	}
	fmt.Fprintf(&b, "**Reason:** %s\n", oneLine(e.Reason))
	fmt.Fprintf(&b, "**Decision:** %s\n", e.Decision.Action)
	fmt.Fprintf(&b, "**Why:** %s\n", oneLine(e.Decision.Reason))
	if len(e.Actions) > 0 {
		fmt.Fprintf(&b, "**Actions:** %s\n", oneLine(strings.Join(e.Actions, "; ")))
	}
	return b.String()
}

// appendLogEntry appends entry to the watcher log at path, starting it on
// a line of its own even when the file does not end with a newline.
func appendLogEntry(path, entry string) error {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		f, err := os.Open(path)
		if err == nil {
			last := make([]byte, 1)
			if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
				entry = "\n" + entry
			}
			_ = f.Close()
		}
	}
	if err := appendFile(path, []byte(entry)); err != nil {
		return fmt.Errorf("append to watcher log: %w", err)
	}
	return nil
}
