package cli

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// ptyRun runs `optr run` on the offline demo in process with stderr on a
// real pseudo-terminal of the given width, and returns the exit code and
// every byte the terminal received.
func ptyRun(t *testing.T, cols int, env map[string]string) (int, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&screen, ptmx) // ends with EIO once the terminal side is closed
	}()
	var stdout bytes.Buffer
	c := New()
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, tty
	c.Getenv = func(k string) string { return env[k] }
	c.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
	code := c.Run(t.Context(), []string{"run", "--config", "testdata/demo/optr.yml",
		"--intent", "Explain why ledgers are hash-chained", "--datalake", t.TempDir()})
	if err := tty.Close(); err != nil {
		t.Fatal(err)
	}
	<-read
	if code != 0 {
		t.Logf("stdout:\n%s", stdout.String())
	}
	return code, screen.String()
}

// TestLiveViewOnATerminal runs the demo with stderr on a pseudo-terminal
// and checks the screen a user is left with: one row per agent, none of
// them stale, the failed agent's reason in its row and above the table,
// the watcher's log lines whole; colour only when the terminal wants it.
func TestLiveViewOnATerminal(t *testing.T) {
	demoWorkspace(t) // changes directory: not parallel
	const cols = 100
	rowRE := regexp.MustCompile(`^ [✔✘…] (\S+) `)
	tests := []struct {
		name       string
		env        map[string]string
		color      bool
		cursorMove bool
	}{
		{"colour terminal", map[string]string{"TERM": "xterm-256color"}, true, true},
		{"NO_COLOR", map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false, true},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := ptyRun(t, cols, tt.env)
			if code != 0 {
				t.Fatalf("exit code %d, want 0; the terminal got:\n%s", code, raw)
			}
			if got := regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(raw); got != tt.color {
				t.Errorf("colour escapes present: %v, want %v", got, tt.color)
			}
			if got := strings.Contains(raw, "\x1b[J"); got != tt.cursorMove {
				t.Errorf("cursor movement present: %v, want %v", got, tt.cursorMove)
			}
			lines := emulate(t, raw, cols)
			final := strings.Join(lines, "\n")
			if !strings.Contains(final, "cannot reach the model (simulated)") {
				t.Errorf("the failed agent's reason is nowhere on the screen:\n%s", final)
			}
			if !regexp.MustCompile(`broken:? escalated (?:after|in) \S+(?::| —) exit_status: sh exited with status 3 — broken: cannot reach the model \(simulated\) · watcher: reassign \(no spare agent to take the task over\)`).MatchString(final) {
				t.Errorf("the failure and the watcher's decision are not on one line, cause first:\n%s", final)
			}
			if !tt.cursorMove {
				return
			}
			rows := map[string][]string{}
			for _, l := range lines {
				if m := rowRE.FindStringSubmatch(l); m != nil {
					rows[m[1]] = append(rows[m[1]], l)
				}
			}
			for _, agent := range []string{"good", "sloppy", "broken", "slow"} {
				if len(rows[agent]) != 1 {
					t.Errorf("agent %s has %d table rows on the final screen, want 1 (a stale row was left):\n%s", agent, len(rows[agent]), final)
				}
			}
			if r := rows["broken"]; len(r) == 1 && !strings.Contains(r[0], "exit_status: sh exited with status 3") {
				t.Errorf("broken's row does not say why it failed: %q", r[0])
			}
			for _, l := range lines {
				if strings.Contains(l, " running ") || strings.Contains(l, " queued ") {
					t.Errorf("a row of an agent still running or queued is left on the screen: %q\n%s", l, final)
				}
				if w := len([]rune(l)); rowRE.MatchString(l) && w >= cols {
					t.Errorf("a table row is %d columns wide on a %d-column terminal: %q", w, cols, l)
				}
			}
		})
	}
}
