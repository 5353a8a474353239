package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// maxRunRSS bounds the peak resident memory of optr run over four agents
// that each print 50 MiB: twice the largest output and 64 MiB (optr-bench's
// P10). Outputs stream to their spool files and on to the datalake;
// nothing holds one whole.
const maxRunRSS = 164 << 10 // KiB

// Issue 35's memory bound: optr run, as a whole process, over four
// agents printing 50 MiB each — two in 64-byte lines, two as one line of
// 50 MiB (what a reader by lines would hold whole) — stays within
// maxRunRSS. A bound on memory, not on time. So does a run that pauses at
// a THREAT checkpoint with those outputs, and `optr resume` that
// proceeds from it: the checkpoint names the outputs' files rather than
// holding them (it would pass the 32 MiB a checkpoint file may hold), and
// the resume reads them back without holding one whole.
func TestRunPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS as wait4 reports it is measured on Linux")
	}
	t.Parallel()
	dir := t.TempDir()
	child := filepath.Join(dir, "rsschild")
	if out, err := exec.Command("go", "build", "-o", child, "./testdata/rsschild").CombinedOutput(); err != nil {
		t.Fatalf("build rsschild: %v\n%s", err, out)
	}
	const size = 50 << 20
	lines := `yes 'optr rss test line, sixty-four bytes long, again and again.' | head -c ` + strconv.Itoa(size)
	oneLine := `head -c ` + strconv.Itoa(size) + ` /dev/zero | tr '\\0' x` // \\ in YAML's double quotes: tr's \0
	// agents prints first, then 50 MiB of lines or one line, the output
	// bound just above it.
	agents := func(first string) string {
		cfg := "executor: { max-output: " + strconv.Itoa(size+1) + " }\nagents:\n"
		for i, run := range []string{lines, lines, oneLine, oneLine} {
			if first != "" {
				run = "{ echo " + first + "; " + run + "; } | head -c " + strconv.Itoa(size)
			}
			cfg += fmt.Sprintf("  a%d: { provider: command, run: [sh, -c, \"%s\"] }\n", i, run) // YAML's double quotes
		}
		return cfg
	}
	// measure runs optr with args in its own folder and returns its peak
	// RSS in KiB and its exit code.
	measure := func(t *testing.T, dir string, args ...string) int {
		t.Helper()
		out := filepath.Join(dir, "rss")
		cmd := exec.Command(child, append([]string{out, optrBin}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		b, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && args[0] == "run" && exit.ExitCode() == 3) { // 3: paused
			t.Fatalf("optr %s: %v\n%s", args[0], err, b[max(0, len(b)-3000):])
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		kib, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("optr %s: peak RSS %d MiB", args[0], kib>>10)
		if kib > maxRunRSS {
			t.Errorf("optr %s's peak RSS is %d MiB, more than %d MiB", args[0], kib>>10, maxRunRSS>>10)
		}
		return kib
	}
	t.Run("run", func(t *testing.T) {
		dir := filepath.Join(dir, "run")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "optr.yml"), []byte(agents("")), 0o644); err != nil {
			t.Fatal(err)
		}
		measure(t, dir, "run", "--config", "optr.yml", "--workflow", "rss", "--intent", "print",
			"--datalake", "lake", "--interactive", "never")
	})
	t.Run("paused and resumed", func(t *testing.T) {
		dir := filepath.Join(dir, "paused")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// A token in every output: π*'s is found, redacted, and the run
		// pauses at a THREAT checkpoint (detection.on-finding's default).
		cfg := agents("token " + tokentest.GitHubPAT(35))
		if err := os.WriteFile(filepath.Join(dir, "optr.yml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		measure(t, dir, "run", "--config", "optr.yml", "--workflow", "rss", "--intent", "print",
			"--datalake", "lake", "--interactive", "never")
		cps, _ := filepath.Glob(filepath.Join(dir, "lake", "checkpoints", "*.json"))
		if len(cps) != 1 {
			t.Fatalf("checkpoints %v, want the run's one", cps)
		}
		if fi, err := os.Stat(cps[0]); err != nil || fi.Size() > 1<<20 {
			t.Fatalf("the checkpoint file (%v) holds the outputs: %d bytes", err, fi.Size())
		}
		id := strings.TrimSuffix(filepath.Base(cps[0]), ".json")
		measure(t, dir, "resume", "--checkpoint", id, "--choose", "1", "--config", "optr.yml", "--datalake", "lake")
		results, _ := filepath.Glob(filepath.Join(dir, "lake", "workflows", "rss", "runs", "*", "result.md"))
		if len(results) != 1 {
			t.Fatalf("result.md: %v, want the resumed run's", results)
		}
		fi, err := os.Stat(results[0])
		if err != nil || fi.Size() < size-64 { // the token redacted
			t.Fatalf("result.md (%v): %d bytes, want π*'s %d less its token", err, fi.Size(), size)
		}
	})
}
