package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// liveOnBuffer returns a live view of agents on a buffer the CLI takes
// for a terminal, with TERM and NO_COLOR from env, and the CLI's stderr.
func liveOnBuffer(t *testing.T, env map[string]string, agents ...string) (*live, *bytes.Buffer, *CLI) {
	t.Helper()
	var buf bytes.Buffer
	c := &CLI{Stderr: &buf, Getenv: func(k string) string { return env[k] },
		IsTerminal: func(any) bool { return true }, Now: func() time.Time { return time.Unix(0, 0) }}
	return c.newLive(agents), &buf, c
}

// TestLiveKeepsLogLinesAboveTheTable: lines written to stderr while the
// table is up, even in pieces, land above it whole, and the table is
// drawn once below them.
func TestLiveKeepsLogLinesAboveTheTable(t *testing.T) {
	t.Parallel()
	lv, buf, c := liveOnBuffer(t, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, "a", "b")
	lv.event(executor.Event{Agent: "a", Status: status.Running, Attempt: 1})
	fmt.Fprint(c.errOut(), "[optr] a log ")
	fmt.Fprint(c.errOut(), "line\n[optr] another\n")
	lv.event(executor.Event{Agent: "a", Status: status.Failed, Result: &executor.Result{
		Agent: "a", Status: status.Failed, ExecMS: 1500, Error: "agent a failed: exit status 3; the end of stderr:\nno key"}})
	lv.event(executor.Event{Agent: "b", Status: status.Succeeded, Result: &executor.Result{Agent: "b", Status: status.Succeeded, ExecMS: 20}})
	fmt.Fprint(c.errOut(), "after the table\n")
	lv.close()
	got := emulate(t, strings.ReplaceAll(buf.String(), "\n", "\r\n"), 80)
	want := []string{
		"[optr] a log line",
		"[optr] another",
		"✘ a failed after 1.5s: agent a failed: exit status 3 — no key",
		" ✘ a                    failed         1.5s  agent a failed: exit status 3 — n…",
		" ✔ b                    succeeded      20ms",
		"after the table",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

// TestLiveRowsFitTheTerminal: a row never reaches the last column, so it
// cannot wrap and leave a stale part behind.
func TestLiveRowsFitTheTerminal(t *testing.T) {
	t.Parallel()
	lv, buf, _ := liveOnBuffer(t, map[string]string{"TERM": "xterm"}, "a")
	lv.event(executor.Event{Agent: "a", Status: status.Failed, Result: &executor.Result{
		Agent: "a", Status: status.Failed, Error: strings.Repeat("very long reason ", 20)}})
	lv.close()
	for _, l := range emulate(t, strings.ReplaceAll(buf.String(), "\n", "\r\n"), 1000) {
		if strings.HasPrefix(l, " ✘ a ") && len([]rune(l)) >= 80 {
			t.Errorf("row %q is %d columns on an 80-column terminal", l, len([]rune(l)))
		}
	}
	if !strings.Contains(buf.String(), "\x1b[31m") {
		t.Error("no colour on a colour terminal")
	}
}

// TestLiveWithoutATerminal: not a terminal, or TERM=dumb, gets plain lines
// and no escape sequence at all.
func TestLiveWithoutATerminal(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{{"TERM": "dumb"}, {"TERM": "xterm", "NO_COLOR": ""}} {
		var buf bytes.Buffer
		c := &CLI{Stderr: &buf, Getenv: func(k string) string { return env[k] }, Now: time.Now,
			IsTerminal: func(any) bool { return env["TERM"] == "dumb" }}
		lv := c.newLive([]string{"a"})
		lv.event(executor.Event{Agent: "a", Status: status.Failed, Result: &executor.Result{Agent: "a", Status: status.Failed, Error: "boom"}})
		fmt.Fprint(c.errOut(), "log\n")
		lv.close()
		if want := "[optr] a: failed in 0ms — boom\nlog\n"; buf.String() != want {
			t.Errorf("TERM=%s: stderr %q, want %q", env["TERM"], buf.String(), want)
		}
	}
}

// TestLiveRestartedAgentComesBack: an agent that runs again after all had
// finished (a watcher restart, a spare) brings the table back in place of
// the settled one, without its old failure.
func TestLiveRestartedAgentComesBack(t *testing.T) {
	t.Parallel()
	lv, buf, _ := liveOnBuffer(t, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, "a")
	lv.event(executor.Event{Agent: "a", Status: status.Failed, Result: &executor.Result{Agent: "a", Status: status.Failed, ExecMS: 5, Error: "stuck"}})
	lv.event(executor.Event{Agent: "a", Status: status.Running, Attempt: 1})
	lv.event(executor.Event{Agent: "a", Status: status.Succeeded, Result: &executor.Result{Agent: "a", Status: status.Succeeded, ExecMS: 9}})
	lv.close()
	got := emulate(t, strings.ReplaceAll(buf.String(), "\n", "\r\n"), 80)
	want := []string{
		"✘ a failed after 5ms: stuck",
		" ✔ a                    succeeded       9ms",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}
