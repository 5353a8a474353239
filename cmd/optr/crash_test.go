package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crashConfig has a fast agent and a slow one whose shell leaves a
// background child (the kind of process that outlived a killed optr).
const crashConfig = `agents:
  fast:
    provider: command
    run: [sh, -c, 'cat >/dev/null; printf "# Answer\n\nfast\n"']
  slow:
    provider: command
    run: [sh, -c, 'cat >/dev/null; sleep 300 & sleep 300']
    timeout: 10s
selection: {on-no-admissible: least-bad}
`

// crashTrials is how many kill -9 trials TestCrashKill9 makes:
// OPTR_CRASH_TRIALS, else 2 with -short and 6 otherwise (CI).
func crashTrials(t *testing.T) int {
	if n, err := strconv.Atoi(os.Getenv("OPTR_CRASH_TRIALS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 2
	}
	return 6
}

// optrCmd runs the built optr in dir.
func optrCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(optrBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	return cmd
}

// orphansOf lists the processes whose OPTR_PROCGROUP_OWNER names pid.
func orphansOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	prefix := []byte("OPTR_PROCGROUP_OWNER=" + strconv.Itoa(pid) + ":")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.HasPrefix(kv, prefix) {
				out = append(out, p)
			}
		}
	}
	return out
}

// verify runs optr ledger verify and returns the number of entries.
func verify(t *testing.T, dir, ledger string) (int, error) {
	t.Helper()
	if _, err := os.Stat(ledger); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	out, err := optrCmd(dir, "ledger", "verify", "--ledger", ledger).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	data, _ := os.ReadFile(ledger)
	return bytes.Count(data, []byte("\n")), nil
}

// TestCrashKill9 kills `optr run` with SIGKILL at random points, then
// checks what a crashing runner must leave: a ledger that verifies, a next
// run that chains onto it, and no process of the killed run still
// running once the next run started.
func TestCrashKill9(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc to find orphaned processes")
	}
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "optr.yml")
	if err := os.WriteFile(cfg, []byte(crashConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	ledger := filepath.Join(lake, "ledger.jsonl")
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	trials := crashTrials(t)
	var verified, orphans, chained int
	for i := range trials {
		agents := "fast"
		if rng.IntN(2) == 0 {
			agents = "fast,slow"
		}
		run := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--agents", agents,
			"--intent", "crash trial "+strconv.Itoa(i), "--interactive", "never", "--run-id", fmt.Sprintf("crash-%d", i))
		run.Stdout, run.Stderr = nil, nil
		if err := run.Start(); err != nil {
			t.Fatal(err)
		}
		// A random point in the run: before the agents, while they run,
		// around the ledger append.
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		_ = run.Process.Kill()
		_ = run.Wait()
		killed := run.Process.Pid

		before, err := verify(t, dir, ledger)
		if err != nil {
			t.Errorf("trial %d (seed %d): the ledger does not verify after kill -9: %v", i, seed, err)
			continue
		}
		verified++
		next := optrCmd(dir, "run", "--config", cfg, "--datalake", lake, "--agents", "fast",
			"--intent", "after trial "+strconv.Itoa(i), "--interactive", "never", "--run-id", fmt.Sprintf("next-%d", i))
		if out, err := next.CombinedOutput(); err != nil {
			t.Errorf("trial %d (seed %d): the next run failed: %v\n%s", i, seed, err, out)
			continue
		}
		after, err := verify(t, dir, ledger)
		if err != nil || after <= before {
			t.Errorf("trial %d (seed %d): the next run did not chain (%d entries before, %d after): %v", i, seed, before, after, err)
			continue
		}
		chained++
		if left := orphansOf(killed); len(left) > 0 {
			orphans += len(left)
			t.Errorf("trial %d (seed %d): %d processes of the killed optr %d still run: %v", i, seed, len(left), killed, left)
			for _, p := range left {
				if proc, err := os.FindProcess(p); err == nil {
					_ = proc.Kill()
				}
			}
		}
	}
	t.Logf("kill -9 trials: %d, ledger verified: %d, next run chained: %d, orphans: %d (seed %d)", trials, verified, chained, orphans, seed)
	if data, err := os.ReadFile(ledger); err == nil && strings.Count(string(data), "\n") < trials {
		t.Errorf("ledger has %d entries after %d trials and %d next runs", strings.Count(string(data), "\n"), trials, trials)
	}
}
