//go:build unix

package executor

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

// hangOnceSignalled hangs, silent, on its first launch and succeeds on the
// next (the marker file tells the launches apart). Before it hangs it
// opens the FIFO "hung" for writing, which blocks until the test opens it
// to read: the test knows the agent is hung, and its marker written,
// without guessing with a timer.
const hangOnceSignalled = `if [ -f "$PWD/marker" ]; then echo second launch; else touch "$PWD/marker"; : > "$PWD/hung"; exec sleep 30; fi`

// TestStuckAgentIsRestarted: a command agent that prints nothing and sleeps
// is noticed by the watcher, killed, relaunched with fresh state, and the
// run succeeds. The watcher's clock is the test's: it passes stuck-after
// only once the agent is known to hang and the other agent has finished,
// so no other agent can look stuck however slow the machine is.
func TestStuckAgentIsRestarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "hung"), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := &recorder{}
	quickDone := make(chan struct{})
	var once sync.Once
	opts := Options{Tasks: []Task{sh(t, "sleepy", hangOnceSignalled), sh(t, "quick", "echo quick")},
		Request: agent.Request{Intent: "x", Dir: dir}, Sink: rc.sink,
		OnEvent: func(ev Event) {
			rc.event(ev)
			if ev.Agent == "quick" && ev.Result != nil {
				once.Do(func() { close(quickDone) })
			}
		}}
	clock := clocktest.New(clocktest.Start)
	wd := watch(t, &opts, escalation.WatcherOptions{StuckAfter: time.Minute, Interval: 5 * time.Millisecond, Now: clock.Now, MaxRestarts: 1})

	type outcome struct {
		results []*Result
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		results, err := Run(t.Context(), opts)
		done <- outcome{results, err}
	}()
	hung := make(chan error, 1)
	go func() {
		f, err := os.Open(filepath.Join(dir, "hung")) // blocks until sleepy hangs
		if err == nil {
			_, err = io.Copy(io.Discard, f)
			f.Close()
		}
		hung <- err
	}()
	select {
	case err := <-hung:
		if err != nil {
			t.Fatal(err)
		}
	case o := <-done:
		t.Fatalf("the run ended before the agent hung: %v, %+v", o.err, o.results)
	}
	<-quickDone
	clock.Advance(2 * time.Minute) // sleepy is silent past stuck-after
	o := <-done
	if o.err != nil {
		t.Fatalf("Run: %v", o.err)
	}
	// The watcher's goroutine noticed the stall and tells its decision
	// after the restart it ordered, which may end the run first: the
	// run's end stops the watcher, as the pipeline does, before it looks.
	wd.stop()
	r := o.results[0]
	if r.Status != status.Succeeded || r.Output != "second launch\n" || r.Restarts != 1 || r.Error != "" {
		t.Errorf("restarted agent: status %s, output %q, restarts %d, error %q", r.Status, r.Output, r.Restarts, r.Error)
	}
	if len(r.Attempts) != 2 || r.Attempts[0].N != 1 || r.Attempts[0].Outcome != recovery.OutcomeCancelled ||
		r.Attempts[1].N != 2 || r.Attempts[1].Outcome != recovery.OutcomeSucceeded {
		t.Errorf("attempts of both launches = %+v", r.Attempts)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Restart}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"quick", "sleepy"}, rc.sunkNames()); diff != "" {
		t.Errorf("sunk (-want +got):\n%s", diff)
	}
	var retried bool
	for _, ev := range rc.events {
		retried = retried || ev.Agent == "sleepy" && ev.Status == status.Retrying && ev.Attempt == 2
	}
	if !retried {
		t.Errorf("no event announced the relaunch: %+v", rc.events)
	}
	board := readBoard(t, wd)
	if !strings.Contains(board, `"sleepy": {`) || !strings.Contains(board, `"status": "completed"`) {
		t.Errorf("blackboard after the run:\n%s", board)
	}
	if log, _ := os.ReadFile(filepath.Join(wd.dir, escalation.FileWatcherLog)); !strings.Contains(string(log), ": restart\n") {
		t.Errorf("watcher-log.md has no restart entry:\n%s", log)
	}
}
