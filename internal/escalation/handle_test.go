package escalation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// coordDir makes <tmp>/.coordination holding files.
func coordDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".coordination")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

var logLineRE = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[optr\] (ERROR: )?\S`)

func checkLogLines(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if !logLineRE.MatchString(line) {
			t.Errorf("log line %q is not [YYYY-MM-DD HH:MM:SS] [optr] …", line)
		}
	}
}

const seedEscalation = `# Escalation: test-001

**Reason:** Agent timeout during test
**Trigger:** stuck

Agent test-agent has been stuck for 60 seconds.
`

// TestHandleSeedManualTest is the seed's own manual test: an escalate.md
// with **Trigger:** stuck gives a restart decision, the escalation is
// archived and the watcher log has the entry.
func TestHandleSeedManualTest(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, map[string]string{FileEscalate: seedEscalation})
	var stderr bytes.Buffer
	out, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }, Stderr: &stderr})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if !out.Handled || out.Escalation.Decision.Action != Restart || out.Escalation.Agent != "" {
		t.Errorf("outcome = %+v, want a handled restart", out)
	}
	decision := readFile(t, filepath.Join(dir, FileDecision))
	for _, want := range []string{"# Decision: test-001\n", "**Decision:** restart\n", "**Trigger:** stuck\n", "**Reason:** Agent timeout during test\n"} {
		if !strings.Contains(decision, want) {
			t.Errorf("decision.md lacks %q:\n%s", want, decision)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileEscalate)); !os.IsNotExist(err) {
		t.Errorf("escalate.md is still there (%v)", err)
	}
	archived := listDir(t, filepath.Join(dir, DirArchive))
	if diff := cmp.Diff([]string{"escalate-20260304-050607.md"}, archived); diff != "" {
		t.Fatalf("archive (-want +got):\n%s", diff)
	}
	if got := readFile(t, filepath.Join(dir, DirArchive, archived[0])); got != seedEscalation {
		t.Errorf("archived escalation = %q, want the original", got)
	}
	entries := ParseLog(readFile(t, filepath.Join(dir, FileWatcherLog)))
	if len(entries) != 1 || entries[0].Heading != "[2026-03-04 05:06:07] Escalation test-001: restart" || entries[0].Fields["trigger"] != "stuck" {
		t.Errorf("watcher log entries = %+v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), DirCEOInbox)); !os.IsNotExist(err) {
		t.Errorf("a restart wrote a ceo-inbox (%v)", err)
	}
	board := ParseBlackboard([]byte(readFile(t, filepath.Join(dir, FileBlackboard))))
	if len(board.Problems) != 0 || len(board.Messages) != 1 {
		t.Errorf("blackboard: problems %v, messages %d; want none and 1", board.Problems, len(board.Messages))
	}
	checkLogLines(t, stderr.String())

	// Run again: nothing to do.
	stderr.Reset()
	out, err = Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }, Stderr: &stderr})
	if err != nil || out.Handled {
		t.Errorf("second Handle = %+v, %v; want nothing to do", out, err)
	}
	if !strings.Contains(stderr.String(), "nothing to do") {
		t.Errorf("stderr = %q, want it to say there is nothing to do", stderr.String())
	}
}

func TestHandleNothingToDo(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, nil)
	out, err := Handle(t.Context(), dir, HandleOptions{})
	if err != nil || out.Handled {
		t.Fatalf("Handle = %+v, %v; want nothing to do", out, err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("Handle wrote %v with nothing to do", got)
	}
	// A directory that does not exist is nothing to do as well.
	out, err = Handle(t.Context(), filepath.Join(dir, "missing"), HandleOptions{})
	if err != nil || out.Handled {
		t.Errorf("Handle on a missing directory = %+v, %v; want nothing to do", out, err)
	}
}

func TestHandleDecisions(t *testing.T) {
	t.Parallel()
	board := func(agents map[string]string) string {
		m := map[string]any{}
		for id, status := range agents {
			m[id] = map[string]any{"status": status, "task": "task of " + id, "outputs": []any{}, "error": "", "updated_at": ""}
		}
		b, _ := json.Marshal(map[string]any{"agents": m, "task_queue": []any{}, "findings": []any{}, "messages": []any{}})
		return string(b)
	}
	esc := func(trigger, reason string) string {
		return "# Escalation: e-1\n\n**Reason:** " + reason + "\n**Trigger:** " + trigger + "\n"
	}
	tests := []struct {
		name      string
		files     map[string]string
		opts      HandleOptions
		want      Action
		wantAgent string
		wantInbox bool
		check     func(t *testing.T, b *Blackboard)
	}{
		{
			name:  "three failed agents abort",
			files: map[string]string{FileEscalate: esc("error", "agent c failed"), FileBlackboard: board(map[string]string{"a": "failed", "b": "failed", "c": "active", "d": "active"})},
			want:  Abort, wantAgent: "c", wantInbox: true,
			check: func(t *testing.T, b *Blackboard) {
				for id, a := range b.Agents {
					if a.Status != StatusFailed {
						t.Errorf("agent %s is %s after abort, want failed", id, a.Status)
					}
				}
				for _, task := range b.TaskQueue {
					if task.Status != TaskAborted {
						t.Errorf("task %s is %s after abort, want aborted", task.ID, task.Status)
					}
				}
			},
		},
		{
			name:  "max-failures can be raised",
			files: map[string]string{FileEscalate: esc("error", "agent c failed"), FileBlackboard: board(map[string]string{"a": "failed", "b": "failed", "c": "active"})},
			opts:  HandleOptions{MaxFailures: 4},
			want:  Reassign, wantAgent: "c",
		},
		{
			name:  "conflict escalates to a person",
			files: map[string]string{FileEscalate: esc("conflict", "writer and reviewer disagree")},
			want:  EscalateCEO, wantInbox: true,
		},
		{
			name:  "deadlock escalates to a person",
			files: map[string]string{FileEscalate: esc("deadlock", "a waits for b, b waits for a"), FileBlackboard: board(map[string]string{"a": "active", "b": "active"})},
			want:  EscalateCEO, wantAgent: "a", wantInbox: true,
		},
		{
			name:  "timeout restarts",
			files: map[string]string{FileEscalate: esc("timeout", "agent a timed out"), FileBlackboard: board(map[string]string{"a": "stuck"})},
			want:  Restart, wantAgent: "a",
			check: func(t *testing.T, b *Blackboard) {
				task := b.TaskFor("a")
				if task == nil || task.Status != TaskPending || task.Attempts != 1 {
					t.Errorf("task of a = %+v, want pending again with 1 attempt", task)
				}
			},
		},
		{
			name: "error with partial output synthesizes",
			files: map[string]string{FileEscalate: esc("error", "agent a crashed"), FileBlackboard: board(map[string]string{"a": "active"}),
				"agent_a.md": "half of the answer"},
			want: Synthesize, wantAgent: "a",
			check: func(t *testing.T, b *Blackboard) {
				last := b.TaskQueue[len(b.TaskQueue)-1]
				if last.ID != "synthesize-e-1" || last.Status != TaskPending || !strings.Contains(last.Description, "partial outputs of a") {
					t.Errorf("synthesis task = %+v", last)
				}
			},
		},
		{
			name:  "error without output reassigns",
			files: map[string]string{FileEscalate: esc("error", "agent a crashed"), FileBlackboard: board(map[string]string{"a": "active", "b": "completed"})},
			want:  Reassign, wantAgent: "a",
			check: func(t *testing.T, b *Blackboard) {
				if b.Agents["a"].Status != StatusFailed {
					t.Errorf("agent a is %s, want failed", b.Agents["a"].Status)
				}
				task := b.TaskFor("")
				if task == nil || task.Status != TaskPending || task.Description != "task of a" {
					t.Errorf("queued task = %+v, want a's task back in the queue for anyone", task)
				}
			},
		},
		{
			name:  "an unknown trigger synthesizes",
			files: map[string]string{FileEscalate: esc("budget", "tokens are running low")},
			want:  Synthesize,
		},
		{
			name: "a stuck agent restarted too often is an error",
			files: map[string]string{FileEscalate: "# Escalation: e-1\n**Trigger:** stuck\n**Agent:** a\n",
				FileWatcherLog: "\n## [2026-01-01 00:00:00] Escalation e-0: restart\n**Agent:** a\n**Decision:** restart\n"},
			opts: HandleOptions{MaxRestarts: 1},
			want: Reassign, wantAgent: "a",
		},
		{
			name: "the restart limit counts this agent only",
			files: map[string]string{FileEscalate: "# Escalation: e-1\n**Trigger:** stuck\n**Agent:** a\n",
				FileWatcherLog: "\n## [2026-01-01 00:00:00] Escalation e-0: restart\n**Agent:** b\n**Decision:** restart\n"},
			opts: HandleOptions{MaxRestarts: 1},
			want: Restart, wantAgent: "a",
		},
		{
			name:  "the one stuck agent on the blackboard is the one",
			files: map[string]string{FileEscalate: esc("stuck", "something hangs"), FileBlackboard: board(map[string]string{"a": "active", "b": "stuck"})},
			want:  Restart, wantAgent: "b",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := coordDir(t, tt.files)
			var stderr bytes.Buffer
			tt.opts.Now, tt.opts.Stderr = func() time.Time { return t0 }, &stderr
			out, err := Handle(t.Context(), dir, tt.opts)
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			e := out.Escalation
			if e.Decision.Action != tt.want || e.Agent != tt.wantAgent {
				t.Errorf("decision %s about %q, want %s about %q (situation %+v)", e.Decision.Action, e.Agent, tt.want, tt.wantAgent, e.Situation)
			}
			if !strings.Contains(readFile(t, filepath.Join(dir, FileDecision)), "**Decision:** "+string(tt.want)+"\n") {
				t.Errorf("decision.md does not say %s", tt.want)
			}
			inbox := listDir(t, filepath.Join(filepath.Dir(dir), DirCEOInbox))
			if tt.wantInbox {
				if diff := cmp.Diff([]string{"2026-03-04-watcher-escalation-e-1.md"}, inbox); diff != "" {
					t.Errorf("ceo-inbox (-want +got):\n%s", diff)
				} else if body := readFile(t, e.InboxFile); !strings.Contains(body, "**Decision:** "+string(tt.want)) {
					t.Errorf("ceo-inbox file lacks the decision:\n%s", body)
				}
			} else if len(inbox) != 0 {
				t.Errorf("ceo-inbox = %v, want none", inbox)
			}
			b := ParseBlackboard([]byte(readFile(t, filepath.Join(dir, FileBlackboard))))
			if tt.check != nil {
				tt.check(t, b)
			}
			entries := ParseLog(readFile(t, filepath.Join(dir, FileWatcherLog)))
			if last := entries[len(entries)-1]; last.Fields["decision"] != string(tt.want) {
				t.Errorf("last watcher-log entry = %+v", last)
			}
			checkLogLines(t, stderr.String())
		})
	}
}

func TestHandleKeepsUserData(t *testing.T) {
	t.Parallel()
	const corrupt = `{"agents": {"a": {"status": "stuck"` // cut short
	dir := coordDir(t, map[string]string{FileEscalate: seedEscalation, FileBlackboard: corrupt, FileWatcherLog: "\x00\xff garbage without headings"})
	var stderr bytes.Buffer
	out, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }, Stderr: &stderr})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if out.Escalation.Decision.Action != Restart || len(out.Problems) != 1 {
		t.Errorf("outcome = %+v, want a restart and one problem", out)
	}
	if got := readFile(t, filepath.Join(dir, FileBlackboard+".bak-20260304-050607")); got != corrupt {
		t.Errorf("backup = %q, want the corrupt original", got)
	}
	if b := ParseBlackboard([]byte(readFile(t, filepath.Join(dir, FileBlackboard)))); len(b.Problems) != 0 {
		t.Errorf("the new blackboard has problems: %v", b.Problems)
	}
	if !strings.Contains(stderr.String(), "ERROR: blackboard.json is not a JSON object") {
		t.Errorf("stderr does not report the corrupt blackboard:\n%s", stderr.String())
	}
	if log := readFile(t, filepath.Join(dir, FileWatcherLog)); !strings.HasPrefix(log, "\x00\xff garbage without headings\n\n## [") {
		t.Errorf("the watcher log was not appended to: %q", log)
	}
	checkLogLines(t, stderr.String())
}

func TestHandleKeepsUnknownBlackboardMembers(t *testing.T) {
	t.Parallel()
	in := `{"agents": {"test-agent": {"status": "stuck", "task": "t", "outputs": [], "error": "e", "updated_at": "", "pid": 7}},
		"task_queue": [{"id": "t1", "description": "t", "status": "active", "assigned_to": "test-agent", "attempts": 1, "prio": 9}],
		"findings": [], "messages": [{"old": true}], "owner": {"name": "conductor"}}`
	dir := coordDir(t, map[string]string{FileEscalate: seedEscalation, FileBlackboard: in})
	out, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	if out.Escalation.Agent != "test-agent" {
		t.Errorf("agent = %q, want test-agent (named in the text)", out.Escalation.Agent)
	}
	var got struct {
		Agents    map[string]map[string]any `json:"agents"`
		TaskQueue []map[string]any          `json:"task_queue"`
		Messages  []any                     `json:"messages"`
		Owner     map[string]any            `json:"owner"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, FileBlackboard))), &got); err != nil {
		t.Fatal(err)
	}
	a, task := got.Agents["test-agent"], got.TaskQueue[0]
	if a["pid"] != 7.0 || a["error"] != "" || task["prio"] != 9.0 || task["status"] != TaskPending || task["attempts"] != 2.0 ||
		got.Owner["name"] != "conductor" || len(got.Messages) != 2 {
		t.Errorf("blackboard after restart: %+v", got)
	}
	if slices.ContainsFunc(listDir(t, dir), func(n string) bool { return strings.Contains(n, ".bak-") }) {
		t.Errorf("a readable blackboard was backed up: %v", listDir(t, dir))
	}
}

func TestHandleArchiveNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, nil)
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, FileEscalate), []byte(seedEscalation+strings.Repeat("!", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"escalate-20260304-050607-2.md", "escalate-20260304-050607-3.md", "escalate-20260304-050607.md"}
	if diff := cmp.Diff(want, listDir(t, filepath.Join(dir, DirArchive))); diff != "" {
		t.Errorf("archive (-want +got):\n%s", diff)
	}
	if n := len(ParseLog(readFile(t, filepath.Join(dir, FileWatcherLog)))); n != 3 {
		t.Errorf("watcher log has %d entries, want 3", n)
	}
}
