package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// maxRunRSS bounds the peak resident memory of optr run over four agents
// that each print 50 MiB: twice the largest output and 64 MiB (optr-bench's
// P10). Outputs stream to their spool files and on to the datalake;
// nothing holds one whole.
const maxRunRSS = 164 << 10 // KiB

// Issue 35's memory bound: optr run, as a whole process, over four
// agents printing 50 MiB each — two in 64-byte lines, two as one line of
// 50 MiB (what a reader by lines would hold whole) — stays within
// maxRunRSS. A bound on memory, not on time.
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
	cfg := "executor: { max-output: " + strconv.Itoa(size+1) + " }\nagents:\n" +
		"  a0: { provider: command, run: [sh, -c, \"" + lines + "\"] }\n" +
		"  a1: { provider: command, run: [sh, -c, \"" + lines + "\"] }\n" +
		"  a2: { provider: command, run: [sh, -c, \"" + oneLine + "\"] }\n" +
		"  a3: { provider: command, run: [sh, -c, \"" + oneLine + "\"] }\n"
	if err := os.WriteFile(filepath.Join(dir, "optr.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rss")
	cmd := exec.Command(child, out, optrBin, "run", "--config", "optr.yml", "--workflow", "rss", "--intent", "print",
		"--datalake", filepath.Join(dir, "lake"), "--interactive", "never")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("optr run: %v\n%s", err, b[max(0, len(b)-3000):])
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %d MiB", kib>>10)
	if kib > maxRunRSS {
		t.Errorf("optr run's peak RSS is %d MiB, more than %d MiB", kib>>10, maxRunRSS>>10)
	}
}
