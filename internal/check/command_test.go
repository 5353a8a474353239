package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/procgroup/proctest"
)

func TestCommandCheck(t *testing.T) {
	t.Parallel()
	sh := func(script string) []string { return []string{"sh", "-c", script} }
	tests := []struct {
		name   string
		run    []string
		env    []string
		output string
		want   Outcome
	}{
		{"script reads stdin and passes", []string{"./checks/no-todo.sh"}, nil, "all done\n", Outcome{Pass: true}},
		{"script reads stdin and exits 1", []string{"./checks/no-todo.sh"}, nil, "step one\nTODO: step two\n",
			Outcome{Reason: "command ./checks/no-todo.sh exited with status 1: 2:TODO: step two\nfound TODO in the output (constraint no-todo)"}},
		{"exit code is reported", sh("exit 3"), nil, "", Outcome{Reason: "command sh exited with status 3"}},
		{"runs in the workspace", sh(`test -x checks/no-todo.sh`), nil, "", Outcome{Pass: true}},
		{"base env plus OPTR_CONSTRAINT", sh(`test "$BASE" = kept && test "$OPTR_CONSTRAINT" = env-check`), []string{"BASE=kept", "OPTR_CONSTRAINT=spoofed"}, "", Outcome{Pass: true}},
		{"ignores stdin", sh("exit 0"), nil, strings.Repeat("x", 1<<20), Outcome{Pass: true}},
		{"stdout tail when stderr is empty", sh(`cat; exit 1`), nil, "line 1\nline 2\n", Outcome{Reason: "command sh exited with status 1: line 1\nline 2"}},
		{"long output keeps its end", sh(`cat; echo FAILED >&2; exit 1`), nil, strings.Repeat("é", 5000),
			Outcome{Reason: "command sh exited with status 1: …" + strings.Repeat("é", (tailBytes-len("FAILED\n"))/2) + "FAILED"}},
		{"killed by a signal", sh(`kill -TERM $$`), nil, "", Outcome{Reason: "command sh was stopped: signal: terminated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := "no-todo"
			if strings.Contains(tt.name, "env") {
				name = "env-check"
			}
			ch := mustNew(t, name, config.Constraint{Check: "command", Run: tt.run}, Options{Dir: workspace, Env: tt.env})
			got, errText := run(t, ch, tt.output)
			if errText != "" {
				t.Fatalf("Check error: %s", errText)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandCheckCannotRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		run     []string
		wantSub string
	}{
		{"program not installed", []string{"optr-no-such-program"}, "not found in PATH"},
		{"relative program missing in the workspace", []string{"./checks/missing.sh"}, "does not exist"},
		{"not executable", []string{"./checks/not-executable.sh"}, "is not executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch := mustNew(t, "c", config.Constraint{Check: "command", Run: tt.run}, Options{Dir: workspace})
			o, errText := run(t, ch, "x")
			if errText == "" {
				t.Fatalf("Check = %+v, want an error", o)
			}
			if !strings.Contains(errText, tt.wantSub) || !strings.Contains(errText, "check run: in the config") {
				t.Errorf("error %q does not contain %q and advice", errText, tt.wantSub)
			}
		})
	}
}

// TestCommandCheckTimeout: a check that outlives its timeout fails, and its
// whole process group goes, the background child included.
func TestCommandCheckTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := config.Constraint{
		Check:   "command",
		Run:     []string{"sh", "-c", `sleep 30 & echo $! > child.pid; echo started; wait`},
		Timeout: config.Duration(300 * time.Millisecond),
	}
	ch := mustNew(t, "slow", c, Options{Dir: dir})
	start := time.Now()
	got, errText := run(t, ch, "")
	elapsed := time.Since(start)
	if errText != "" {
		t.Fatalf("Check error: %s", errText)
	}
	want := Outcome{Reason: "command sh did not finish within 300ms; its process group was killed: started"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if elapsed > 300*time.Millisecond+waitDelay {
		t.Errorf("Check took %s; the timeout is 300ms", elapsed)
	}
	// The child is gone with the check's process group, or a zombie: it
	// holds no resources.
	proctest.WaitGone(t, proctest.PID(t, filepath.Join(dir, "child.pid")), 3*time.Second)
}

// TestCommandCheckRunStopped: when the run itself is cancelled the check
// could not judge the output, so it errors (unverified) instead of failing.
func TestCommandCheckRunStopped(t *testing.T) {
	t.Parallel()
	ch := mustNew(t, "slow", config.Constraint{Check: "command", Run: []string{"sleep", "30"}}, Options{Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	o, err := ch.Check(ctx, "")
	if err == nil {
		t.Fatalf("Check = %+v, want an error", o)
	}
	if !strings.Contains(err.Error(), "stopped before it finished") {
		t.Errorf("error %q does not say the check was stopped", err)
	}
}
