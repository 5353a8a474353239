package command

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

func TestRunDeliversIntentAndEnvironment(t *testing.T) {
	t.Parallel()
	body := `printf 'intent<%s>\n' "$(cat)"
pwd
env | grep -E '^(OPTR_|BASE=|CUSTOM=)' | grep -v '^OPTR_PROCGROUP_OWNER=' | sort
`
	tests := []struct {
		name string
		hint string
	}{
		{"first attempt", ""},
		{"retry with a hint", "try the other API"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, out := t.TempDir(), t.TempDir()
			a := newAgent(t, config.Agent{
				Run: []string{"sh", script(t, body)},
				Env: map[string]string{"CUSTOM": "from config", "BASE": "overridden"},
			}, Options{Environ: []string{"PATH=" + testPath, "BASE=base", "OPTR_HINT=stale", "OPTR_AGENT=impostor"}})
			resp, err := a.Run(t.Context(), agent.Request{
				Intent:      "fix the\nbuild",
				Workflow:    "issue-7",
				RunID:       "42-1",
				Stage:       "build",
				Constraints: []string{"tests-pass", "no-todo"},
				Hint:        tt.hint,
				OutputDir:   out,
				Dir:         dir,
			})
			if err != nil {
				t.Fatalf("Run: %v\nstderr: %s", err, resp.Stderr)
			}
			want := "intent<fix the\nbuild>\n" + dir + "\n" + strings.Join([]string{
				"BASE=overridden",
				"CUSTOM=from config",
				"OPTR_AGENT=scripted",
				"OPTR_CONSTRAINTS=tests-pass,no-todo",
				"OPTR_HINT=" + tt.hint,
				"OPTR_NEXT_STAGE=",
				"OPTR_OUTPUT_DIR=" + out,
				"OPTR_PREVIOUS_OUTPUT=",
				"OPTR_REPORT_PATH=",
				"OPTR_RUN_ID=42-1",
				"OPTR_STAGE=build",
				"OPTR_TOPIC=",
				"OPTR_WORKFLOW=issue-7",
			}, "\n") + "\n"
			if diff := cmp.Diff(want, resp.Output); diff != "" {
				t.Fatalf("output (-want +got):\n%s", diff)
			}
			if resp.ExitCode != 0 {
				t.Fatalf("ExitCode = %d, want 0", resp.ExitCode)
			}
		})
	}
}

func TestRunLargeIntent(t *testing.T) {
	t.Parallel()
	intent := strings.Repeat("0123456789abcdef", 16<<10) // 256 KiB, beyond a pipe's buffer
	tests := []struct {
		name string
		body string
		want string
	}{
		{"read whole", "wc -c | tr -d ' '\n", strconv.Itoa(len(intent)) + "\n"},
		{"never read", "echo ignored the intent\n", "ignored the intent\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAgent(t, config.Agent{Run: []string{"sh", script(t, tt.body)}}, Options{})
			resp, err := a.Run(t.Context(), agent.Request{Intent: intent, Dir: t.TempDir()})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if resp.Output != tt.want {
				t.Fatalf("Output = %q, want %q", resp.Output, tt.want)
			}
		})
	}
}

func TestRunFramesAndProgress(t *testing.T) {
	t.Parallel()
	body := `printf '<<<OPTR:READY:{"stage":"build","ts":"t0"}>>>\n'
printf 'line one\n<<<OPTR:RES'
sleep 0.05
printf 'ULT:{"ttv_ms":1234}>>>\nREPORT_CREATED: reports/a.md\n'
printf '<<<OPTR:BOGUS:x>>>done\n'
printf 'a warning\n' >&2
`
	raw := `<<<OPTR:READY:{"stage":"build","ts":"t0"}>>>` + "\nline one\n" + `<<<OPTR:RESULT:{"ttv_ms":1234}>>>` +
		"\nREPORT_CREATED: reports/a.md\n<<<OPTR:BOGUS:x>>>done\n"
	var logs syncBuffer
	var progress progressLog
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, body)}},
		Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir(), Progress: progress.report})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := agent.Response{
		Output: "line one\nREPORT_CREATED: reports/a.md\ndone\n",
		TTV:    1234 * time.Millisecond,
		Stderr: "a warning\n",
		Signals: []agent.Signal{
			{Kind: "READY", Payload: `{"stage":"build","ts":"t0"}`},
			{Kind: "RESULT", Payload: `{"ttv_ms":1234}`},
			{Kind: "REPORT_CREATED", Payload: "reports/a.md"},
		},
		// A program outside the model gateway may call any model unseen:
		// its use is unknown, never 0.
		Usage: agent.UnknownUsage,
	}
	if resp.FirstOutput <= 0 {
		t.Errorf("FirstOutput = %v, want when \"line one\" came", resp.FirstOutput)
	}
	resp.FirstOutput = 0
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Fatalf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"READY", "RESULT", "REPORT_CREATED"}, progress.frames); diff != "" {
		t.Fatalf("progress frames (-want +got):\n%s", diff)
	}
	if wantBytes := len(raw) + len("a warning\n"); progress.bytes != wantBytes {
		t.Fatalf("progress reported %d bytes, want %d (stdout and stderr as written)", progress.bytes, wantBytes)
	}
	if l := logs.String(); !strings.Contains(l, "BOGUS") || !strings.Contains(l, "agent=scripted") {
		t.Fatalf("the malformed frame was not logged with the agent's name:\n%s", l)
	}
}

// TestRunFirstOutputIsTheAnswers checks issue 22 item 7's measure: when a
// command agent's answer first appeared, frames not counted. The agent
// claims its TTV in a frame at once and answers only after the test lets
// it, gap later: its first output comes at least gap after the frame. (A
// measure that counted the frame would say less whenever the agent
// started within gap; it can never say more.)
func TestRunFirstOutputIsTheAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	body := `printf '<<<OPTR:RESULT:{"ttv_ms":1}>>>\n'
while [ ! -e ` + release + ` ]; do sleep 0.01; done
printf 'the answer\n'
`
	const gap = 200 * time.Millisecond
	framed := make(chan struct{}, 1)
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, body)}}, Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-framed
		time.Sleep(gap) // the gap the measure must see; nothing waits on it
		if err := os.WriteFile(release, nil, 0o644); err != nil {
			t.Error(err)
		}
	}()
	var once sync.Once
	resp, err := a.Run(t.Context(), agent.Request{Dir: dir, Progress: func(agent.Progress) {
		once.Do(func() { framed <- struct{}{} })
	}})
	<-done
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if resp.Output != "the answer\n" || resp.TTV != time.Millisecond {
		t.Fatalf("output %q, TTV %v", resp.Output, resp.TTV)
	}
	if resp.FirstOutput < gap {
		t.Errorf("FirstOutput = %v, but the answer came at least %v after the frame", resp.FirstOutput, gap)
	}
}

func TestRunFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		reason   string
		exit     int
		contains []string
	}{
		{
			name:     "exit 3",
			body:     "echo partial\necho boom >&2\nexit 3\n",
			reason:   "exit_status",
			exit:     3,
			contains: []string{"exited with status 3", "boom"},
		},
		{
			name:     "ERROR frame sets the reason",
			body:     `printf '<<<OPTR:ERROR:{"code":"E-Quota","message":"quota exhausted"}>>>\n'; exit 2` + "\n",
			reason:   "e_quota",
			exit:     2,
			contains: []string{"exited with status 2", "E-Quota quota exhausted", "stderr was empty"},
		},
		{
			name:     "ERROR frame and exit 0",
			body:     `echo half an answer; printf '<<<OPTR:ERROR:{"code":"E-Quota","message":"quota exhausted"}>>>\n'; exit 0` + "\n",
			reason:   "e_quota",
			exit:     0,
			contains: []string{"exited with status 0 but sent an ERROR frame", "E-Quota quota exhausted"},
		},
		{
			name:     "ERROR frame without a code and exit 0",
			body:     `printf '<<<OPTR:ERROR:{"message":"gave up"}>>>\n'` + "\n",
			reason:   "error_frame",
			exit:     0,
			contains: []string{"gave up"},
		},
		{
			name:     "killed by a signal",
			body:     "kill -KILL $$\n",
			reason:   "exit_status",
			exit:     -1,
			contains: []string{"was killed", "killed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAgent(t, config.Agent{Run: []string{"sh", script(t, tt.body)}}, Options{})
			resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
			e := asAgentError(t, err)
			if e.Class != agent.Systematic || e.Reason != tt.reason {
				t.Fatalf("error %v: class %s reason %s, want systematic %s", err, e.Class, e.Reason, tt.reason)
			}
			if resp.ExitCode != tt.exit {
				t.Fatalf("ExitCode = %d, want %d", resp.ExitCode, tt.exit)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestRunExitKeepsOutputAndStderr(t *testing.T) {
	t.Parallel()
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, "echo partial\necho boom >&2\nexit 3\n")}}, Options{})
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	if err == nil {
		t.Fatal("exit 3 succeeded")
	}
	if diff := cmp.Diff(agent.Response{Output: "partial\n", Stderr: "boom\n", ExitCode: 3, Usage: agent.UnknownUsage}, resp, cmpopts.IgnoreFields(agent.Response{}, "FirstOutput")); diff != "" {
		t.Fatalf("response (-want +got):\n%s", diff)
	}
}

// TestRunTimeoutKillsProcessGroup runs a script whose background child
// ignores SIGTERM and would write a file two seconds later: the timeout must
// stop the whole group, the stray included, and Run must not wait for it.
func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker, pidFile := filepath.Join(dir, "late"), filepath.Join(dir, "stray.pid")
	body := `(trap '' TERM; sleep 2; echo late > "$1") &
echo $! > "$2"
echo started
sleep 30
`
	a := newAgent(t, config.Agent{
		Run:            []string{"sh", script(t, body), marker, pidFile},
		Timeout:        config.Duration(time.Minute),
		AttemptTimeout: config.Duration(300 * time.Millisecond),
	}, Options{KillGrace: 200 * time.Millisecond})
	start := time.Now()
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	elapsed := time.Since(start)
	t.Logf("Run returned %v after start (timeout 300ms, grace 200ms)", elapsed)
	e := asAgentError(t, err)
	if e.Class != agent.Transient || e.Reason != "timeout" {
		t.Fatalf("error %v: class %s reason %s, want transient timeout", err, e.Class, e.Reason)
	}
	if elapsed > 3*time.Second {
		t.Fatalf("Run took %v after a 300ms timeout", elapsed)
	}
	if resp.Output != "started\n" || resp.ExitCode != -1 {
		t.Fatalf("Output %q ExitCode %d, want %q -1", resp.Output, resp.ExitCode, "started\n")
	}
	// The child has ended, killed or at the end of its sleep; only a
	// survivor writes the marker first.
	proctest.WaitGone(t, proctest.PID(t, pidFile), 10*time.Second)
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the background child outlived the timeout and wrote %s (stat: %v)", marker, err)
	}
}

// TestRunDoesNotWaitForStrays: the command succeeds but leaves a child
// holding stdout; Run returns after the grace and the stray is killed.
func TestRunDoesNotWaitForStrays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker, pidFile := filepath.Join(dir, "late"), filepath.Join(dir, "stray.pid")
	body := `(sleep 3; echo late > "$1") &
echo $! > "$2"
echo done
`
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, body), marker, pidFile}}, Options{KillGrace: 200 * time.Millisecond})
	start := time.Now()
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	elapsed := time.Since(start)
	t.Logf("Run returned %v after start (grace 200ms)", elapsed)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if elapsed > 2500*time.Millisecond {
		t.Fatalf("Run waited %v for a stray holding stdout", elapsed)
	}
	if resp.Output != "done\n" {
		t.Fatalf("Output = %q", resp.Output)
	}
	proctest.WaitGone(t, proctest.PID(t, pidFile), 10*time.Second)
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stray outlived the attempt and wrote %s (stat: %v)", marker, err)
	}
}

func TestRunContextCancelled(t *testing.T) {
	t.Parallel()
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, "echo started\nsleep 30\n")}, Timeout: config.Duration(time.Minute)},
		Options{KillGrace: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	start := time.Now()
	// Cancelled once the agent printed, not after a guessed while: a
	// loaded machine may take longer to start sh.
	resp, err := a.Run(ctx, agent.Request{Dir: t.TempDir(), Progress: func(p agent.Progress) {
		if p.Bytes > 0 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	var e *agent.Error
	if errors.As(err, &e) {
		t.Fatalf("a cancelled run was classified (%v): the caller decides", e)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Run took %v to notice the cancellation", d)
	}
	if resp.Output != "started\n" {
		t.Fatalf("Output = %q", resp.Output)
	}

	// A context already done never starts the command.
	resp, err = a.Run(ctx, agent.Request{Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) || resp.Output != "" {
		t.Fatalf("Run on a done context = %q, %v", resp.Output, err)
	}
}

func TestRunStderrIsBounded(t *testing.T) {
	t.Parallel()
	body := `i=0
while [ $i -lt 2000 ]; do echo "noise line $i" >&2; i=$((i+1)); done
echo END >&2
exit 1
`
	a := newAgent(t, config.Agent{Run: []string{"sh", script(t, body)}}, Options{MaxStderr: 1024})
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	if err == nil {
		t.Fatal("exit 1 succeeded")
	}
	note, kept, ok := strings.Cut(resp.Stderr, "\n")
	if !ok || !strings.HasPrefix(note, "[optr: the first ") || !strings.Contains(note, "bytes of stderr were cut") {
		t.Fatalf("stderr does not say it was cut: %q", note)
	}
	if len(kept) != 1024 || !strings.HasSuffix(kept, "noise line 1999\nEND\n") {
		t.Fatalf("kept %d bytes ending %q, want the last 1024", len(kept), kept[max(0, len(kept)-40):])
	}
	if msg := err.Error(); !strings.Contains(msg, "END") || len(msg) > 4<<10 {
		t.Fatalf("error message should quote a bounded stderr tail: %d bytes", len(msg))
	}
}

func TestRunOutputTooLarge(t *testing.T) {
	t.Parallel()
	a := newAgent(t, config.Agent{Run: []string{"yes", "0123456789"}, Timeout: config.Duration(time.Minute)},
		Options{MaxOutput: 64 << 10, KillGrace: 200 * time.Millisecond})
	start := time.Now()
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	e := asAgentError(t, err)
	if e.Class != agent.Systematic || e.Reason != "output_too_large" {
		t.Fatalf("error %v: class %s reason %s, want systematic output_too_large", err, e.Class, e.Reason)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %v: the command was not stopped at the limit", d)
	}
	want := strings.Repeat("0123456789\n", 64<<10/11+1)[:64<<10]
	if resp.Output != want {
		t.Fatalf("kept %d bytes of output, want the first %d", len(resp.Output), len(want))
	}
}

func TestRunBadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.sh")
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		run      []string
		dir      string
		contains string
	}{
		{"not in PATH", []string{"no-such-agent-xyz"}, dir, "not found in PATH"},
		{"missing relative path", []string{"./missing.sh"}, dir, "does not exist"},
		{"not executable", []string{plain}, dir, "chmod +x"},
		{"a directory", []string{dir}, dir, "is a directory"},
		{"missing working directory", []string{"sh", "-c", "true"}, filepath.Join(dir, "gone"), "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAgent(t, config.Agent{Run: tt.run}, Options{})
			_, err := a.Run(t.Context(), agent.Request{Dir: tt.dir})
			e := asAgentError(t, err)
			if e.Class != agent.Fatal || e.Reason != "bad_config" {
				t.Fatalf("error %v: class %s reason %s, want fatal bad_config", err, e.Class, e.Reason)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("error %q does not mention %q", err, tt.contains)
			}
		})
	}
}

// TestRunExecutesFromAgentPATH execs a script directly, found on the PATH
// the agent's env sets rather than optr's own. It is not parallel: see script.
func TestRunExecutesFromAgentPATH(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "my-agent"), []byte("#!/bin/sh\necho \"$0 ran with $1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, config.Agent{Run: []string{"my-agent", "arg"}, Env: map[string]string{"PATH": bin + ":" + testPath}}, Options{})
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := filepath.Join(bin, "my-agent") + " ran with arg\n"; resp.Output != want {
		t.Fatalf("Output = %q, want %q", resp.Output, want)
	}
}
