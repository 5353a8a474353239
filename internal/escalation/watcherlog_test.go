package escalation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLog(t *testing.T) {
	t.Parallel()
	in := "# Watcher log\nintro\n\n## [2026-01-01T00:00:00] \n**Status:** nominal\n**Notes:** fine\n" +
		"\n## [2026-01-02 03:04:05] Escalation e1: restart\n**Trigger:** stuck\n**Agent:** a\n**Decision:** restart\n"
	want := []LogEntry{
		{Heading: "[2026-01-01T00:00:00]", Text: "**Status:** nominal\n**Notes:** fine",
			Fields: map[string]string{"status": "nominal", "notes": "fine"}},
		{Heading: "[2026-01-02 03:04:05] Escalation e1: restart", Text: "**Trigger:** stuck\n**Agent:** a\n**Decision:** restart",
			Fields: map[string]string{"trigger": "stuck", "agent": "a", "decision": "restart"}},
	}
	if diff := cmp.Diff(want, ParseLog(in)); diff != "" {
		t.Errorf("ParseLog (-want +got):\n%s", diff)
	}
	if got := ParseLog("no entries\n# title\n"); len(got) != 0 {
		t.Errorf("ParseLog without headings = %v, want none", got)
	}
}

func TestReadLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileWatcherLog)

	got, err := ReadLog(path, RecentEntries)
	if err != nil || got != nil {
		t.Fatalf("missing log: %v, %v; want nothing", got, err)
	}

	var b strings.Builder
	b.WriteString("# title\n")
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&b, "\n## entry %d\n**N:** %d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadLog(path, RecentEntries)
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, e := range got {
		headings = append(headings, e.Heading)
	}
	var want []string
	for i := 6; i <= 25; i++ {
		want = append(want, fmt.Sprintf("entry %d", i))
	}
	if diff := cmp.Diff(want, headings); diff != "" {
		t.Errorf("last 20 entries (-want +got):\n%s", diff)
	}
}

func TestReadLogLongFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileWatcherLog)
	big := "## first\n" + strings.Repeat("x", maxLogTail+100) + "\n## second\n**Agent:** a\n## third\n"
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLog(path, RecentEntries)
	if err != nil {
		t.Fatal(err)
	}
	want := []LogEntry{
		{Heading: "second", Text: "**Agent:** a", Fields: map[string]string{"agent": "a"}},
		{Heading: "third", Fields: map[string]string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tail of a long log (-want +got):\n%s", diff)
	}
}

func TestAppendLogEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileWatcherLog)
	if err := os.WriteFile(path, []byte("## old\nno newline at the end"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &Escalation{ID: "e1", Time: t0, Agent: "a", Trigger: TriggerStuck, Reason: "r\nr",
		Decision: Decision{Restart, "why"}, Actions: []string{"one", "two"}}
	if err := appendLogEntry(path, renderLogEntry(e)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "## old\nno newline at the end\n\n## [2026-03-04 05:06:07] Escalation e1: restart\n**Trigger:** stuck\n**Agent:** a\n" +
		"**Reason:** r r\n**Decision:** restart\n**Why:** why\n**Actions:** one; two\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	entries := ParseLog(string(data))
	if len(entries) != 2 || entries[1].Fields["decision"] != "restart" || entries[1].Fields["agent"] != "a" {
		t.Errorf("the entry does not read back: %+v", entries)
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("## [2026-01-02 03:04:05] Escalation e1: restart\n**Agent:** a\n")
	f.Add("text\n## \n## x\r\n**K:** v")
	f.Fuzz(func(t *testing.T, in string) {
		entries := ParseLog(in)
		n := 0
		for _, line := range strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n") {
			if strings.HasPrefix(line, "## ") {
				n++
			}
		}
		if len(entries) != n {
			t.Fatalf("%d entries for %d headings", len(entries), n)
		}
		for _, e := range entries {
			if strings.Contains(e.Heading, "\n") {
				t.Fatalf("heading with a newline: %q", e.Heading)
			}
		}
	})
}
