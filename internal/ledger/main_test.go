package ledger

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a helper process instead of
// running tests: the concurrency test re-executes it to append from a
// second process, and the memory test to verify in a process of its own.
const helperEnv = "OPTR_LEDGER_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	code := m.Run()
	cleanupBenchFiles()
	os.Exit(code)
}

// runHelper runs one helper mode with its arguments in the environment.
func runHelper(mode string) int {
	path := os.Getenv("OPTR_LEDGER_PATH")
	var err error
	switch mode {
	case "append":
		err = helperAppend(path, os.Getenv("OPTR_LEDGER_RUN"), os.Getenv("OPTR_LEDGER_COUNT"))
	case "synthetic":
		err = helperSynthetic(path, os.Getenv("OPTR_LEDGER_COUNT"))
	case "verify":
		var s Summary
		if s, err = VerifyFile(path); err == nil {
			fmt.Println(s.Entries, peakRSS())
		}
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helperAppend appends count entries one by one, like a run that records
// as it goes.
func helperAppend(path, run, count string) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return fmt.Errorf("bad count %q: %w", count, err)
	}
	for i := range n {
		d := Draft{Kind: KindCheckpoint, Run: run, Workflow: "w", Time: time.Now(), Fields: map[string]any{"i": i}}
		if _, err := Append(path, d); err != nil {
			return err
		}
	}
	return nil
}

// helperSynthetic writes a synthetic ledger of count entries to path.
func helperSynthetic(path, count string) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return fmt.Errorf("bad count %q: %w", count, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := WriteSynthetic(f, n); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// peakRSS returns this process's peak resident set in bytes, from Linux's
// /proc/self/status (VmHWM), or -1 elsewhere. Unlike the rusage a parent
// gets from wait, it counts only what this process used after exec: Linux
// charges a child started by vfork (as os/exec does) with its parent's
// peak.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}
