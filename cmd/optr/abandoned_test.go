//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFor waits until path exists or the process ends, and reports which.
// It waits on the file system and on the process, never on the clock.
func waitFor(t *testing.T, path string, done <-chan struct{}) bool {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-done:
			_, err := os.Stat(path)
			return err == nil
		case <-time.After(10 * time.Millisecond): // a poll; the test's timeout bounds it
		}
	}
}

// TestKilledRunsAreMarkedAbandoned checks issue 27 item 10: a run killed
// between its decision and the ledger append kept optr-selection.json and
// result.md but had no ledger entry and was never marked abandoned; a
// delegation killed while its specialists ran left specs/NNN_* with no
// marker. The next start marks both, naming why, and the ledger holds no
// entry of the killed select run.
func TestKilledRunsAreMarkedAbandoned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lake := filepath.Join(dir, ".optr")
	ledger := filepath.Join(lake, "ledger.jsonl")
	cfg := filepath.Join(dir, "optr.yml")
	// The agents say where they are by a file in $OPTR_OUTPUT_DIR (the one
	// place besides their own directories they may write) and wait for
	// one in the workspace (which they may read).
	runs := filepath.Join(lake, "workflows", "local", "runs")
	mark := filepath.Join(runs, "research", "agent-files", "specialist-started")
	waiting, goOn := filepath.Join(runs, "decided", "agent-files", "agent-waits"), filepath.Join(dir, "go-on")
	if err := os.WriteFile(cfg, []byte(`agents:
  fast:
    provider: command
    run: [sh, -c, 'cat >/dev/null; printf "# Answer\n\nfast\n"']
  waiter:
    provider: command
    run: [sh, -ec, 'cat >/dev/null; touch "$OPTR_OUTPUT_DIR/agent-waits"; while [ ! -e "`+goOn+`" ]; do sleep 0.05; done; printf "# Answer\n\nwaited\n"']
  planner:
    provider: command
    run: [sh, -c, 'cat >/dev/null; echo "INVOCATION_PLAN_READY: 1"; echo "[{\"topic\":\"one\",\"focus\":\"f\"}]"; echo "RESEARCH_COORDINATOR_COMPLETE: SUCCESS"']
  stuck:
    provider: command
    run: [sh, -ec, 'cat >/dev/null; touch "$OPTR_OUTPUT_DIR/specialist-started"; exec sleep 300']
pipelines:
  research: {mode: delegate, coordinator: planner, agents: [stuck]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A first run makes the ledger, so that its lock can be held.
	if out, err := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--agents", "fast", "--intent", "first", "--run-id", "first").CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}

	// The select run's agent waits until this test holds the ledger's
	// lock; the run then decides and waits for the lock: it is killed
	// between the decision and the append.
	run := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--agents", "waiter", "--intent", "decided", "--run-id", "decided")
	lock, err := os.OpenFile(ledger, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	killAt(t, run, waiting, filepath.Join(lake, "workflows", "local", "runs", "decided", "optr-selection.json"), func() {
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goOn, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	lock.Close() // releases the lock

	// The delegation is killed while its specialist runs.
	deleg := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--pipeline", "research", "--intent", "research", "--run-id", "research")
	killAt(t, deleg, mark, "", nil)

	if out, err := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--agents", "fast", "--intent", "next", "--run-id", "next").CombinedOutput(); err != nil {
		t.Fatalf("next run: %v\n%s", err, out)
	}
	data, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"run":"decided"`) {
		t.Fatal("the killed run has a ledger entry: it was not killed before the append")
	}
	for dir, want := range map[string]string{
		filepath.Join(lake, "workflows", "local", "runs", "decided"):  "before the ledger recorded it",
		filepath.Join(lake, "workflows", "local", "runs", "research"): "ended before",
		filepath.Join(lake, "specs", "001_local"):                     "delegation ended before it finished",
	} {
		var rec struct{ Run, Reason string }
		data, _ := os.ReadFile(filepath.Join(dir, "abandoned.json"))
		if err := json.Unmarshal(data, &rec); err != nil || !strings.Contains(rec.Reason, want) {
			t.Errorf("%s: abandoned.json = %s (%v); want a reason saying %q", dir, data, err, want)
		}
		if _, err := os.Stat(filepath.Join(dir, ".running")); !os.IsNotExist(err) {
			t.Errorf("%s keeps .running (%v)", dir, err)
		}
	}
}

// killAt starts cmd and waits until path exists; then, when then is
// given, it calls it and waits until last exists; then it kills cmd with
// SIGKILL.
func killAt(t *testing.T, cmd *exec.Cmd, path, last string, then func()) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if !waitFor(t, path, done) {
		t.Fatalf("%v ended before %s existed", cmd.Args, path)
	}
	if then != nil {
		then()
		if !waitFor(t, last, done) {
			t.Fatalf("%v ended before %s existed", cmd.Args, last)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}
