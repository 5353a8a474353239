package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/fifotest"
)

// TestNamedFilesThatAreNotFiles checks issue 27 items 9 and 12: a FIFO
// named as --config, --intent-file, --ledger or a checkpoint blocked optr
// forever (a FIFO with no writer blocks open(2), and the test would never
// end), and --config naming a directory exited 1. Each is a usage error
// (exit 2) naming the path and what it is, and nothing is written.
func TestNamedFilesThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	fifotest.Make(t, fifo)
	good := filepath.Join(dir, "optr.yml")
	if err := os.WriteFile(good, []byte("agents:\n  a:\n    provider: command\n    run: [\"true\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"config is a FIFO", []string{"run", "--intent", "x", "--config", fifo}, fifo + " is a FIFO"},
		{"config is a directory", []string{"run", "--intent", "x", "--config", dir}, dir + " is a directory"},
		{"intent file is a FIFO", []string{"run", "--intent-file", fifo, "--config", good}, fifo + " is a FIFO"},
		{"intent file is a directory", []string{"run", "--intent-file", dir, "--config", good}, dir + " is a directory"},
		{"ledger is a FIFO", []string{"run", "--intent", "x", "--config", good, "--ledger", fifo}, "a FIFO"},
		{"ledger to verify is a FIFO", []string{"ledger", "verify", "--ledger", fifo}, fifo + " is a FIFO"},
		{"checkpoint to verify is a FIFO", []string{"ledger", "verify", "--checkpoint", fifo}, fifo + " is a FIFO"},
		{"plan is a FIFO", []string{"gather", "--plan", fifo, "--from", dir}, fifo + " is a FIFO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			got := optr(t, tt.args...)
			if got.code != ExitUsage || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d naming %q", got.code, got.stderr, ExitUsage, tt.want)
			}
			if _, err := os.Stat(".optr"); err == nil {
				t.Fatal("a refused run wrote .optr")
			}
		})
	}
}

// TestConfigWithAByteOrderMark: a config an editor saved with a UTF-8 BOM
// was refused as `unknown key "\ufeffagents"` (issue 27 item 12).
func TestConfigWithAByteOrderMark(t *testing.T) {
	demoWorkspace(t)
	data, err := os.ReadFile("testdata/demo/optr.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("bom.yml", append([]byte("\ufeff"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	got := optr(t, "run", "--config", "bom.yml", "--intent", "Explain ledgers", "--agents", "good")
	if got.code != ExitOK {
		t.Fatalf("exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestARunIDIsRecordedOnce checks issue 27 item 13: the same --run-id
// under another workflow, or after its directory was removed, was recorded
// a second time. Both are refused before any agent starts (exit 2), and
// the ledger keeps one entry of it.
func TestARunIDIsRecordedOnce(t *testing.T) {
	demoWorkspace(t)
	run := func(args ...string) run {
		return optr(t, append([]string{"run", "--config", "testdata/demo/optr.yml", "--agents", "good", "--intent", "Explain ledgers"}, args...)...)
	}
	if got := run("--run-id", "once", "--workflow", "first"); got.code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", got.code, got.stderr)
	}
	if got := run("--run-id", "once", "--workflow", "second"); got.code != ExitUsage || !strings.Contains(got.stderr, `run id "once" is already in the ledger`) {
		t.Errorf("the same run id under another workflow: exit %d, %q", got.code, got.stderr)
	}
	if err := os.RemoveAll(filepath.Join(".optr", "workflows", "first", "runs", "once")); err != nil {
		t.Fatal(err)
	}
	if got := run("--run-id", "once", "--workflow", "first"); got.code != ExitUsage || !strings.Contains(got.stderr, "already in the ledger") {
		t.Errorf("the same run id after its directory was removed: exit %d, %q", got.code, got.stderr)
	}
	data, err := os.ReadFile(filepath.Join(".optr", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"run":"once"`); n != 1 {
		t.Errorf("the ledger holds %d entries of run once", n)
	}
}

// TestUnverifiedConstraintIsSaid: a constraint the intent names that the
// config does not define, with no judge, is said in the terminal (issue 22
// item 9).
func TestUnverifiedConstraintIsSaid(t *testing.T) {
	demoWorkspace(t)
	got := optr(t, "run", "--config", "testdata/demo/optr.yml", "--agents", "good", "--intent", "Explain ledgers", "--constraint", "cites-sources")
	if got.code != ExitOK || !strings.Contains(got.stdout, "not verified: cites-sources") {
		t.Errorf("exit %d, stdout:\n%s", got.code, got.stdout)
	}
}

// An intent file with nothing in it is said to be just that, naming the
// file, not taken for a missing --intent.
func TestEmptyIntentFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, content := range map[string]string{"empty.txt": "", "blank.txt": " \n\t\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"run", "--intent-file", "empty.txt"}, "", "the intent file empty.txt is empty"},
		{[]string{"run", "--intent-file", "blank.txt"}, "", "the intent file blank.txt is only whitespace (4 bytes)"},
		{[]string{"run", "--intent-file", "-"}, "", "the intent on stdin (--intent-file -) is empty"},
		{[]string{"run"}, "", "no intent: give --intent TEXT or --intent-file FILE"},
	}
	for _, tt := range tests {
		got := optr(t, tt.args...)
		if got.code != ExitUsage || !strings.Contains(got.stderr, tt.want) {
			t.Errorf("optr %v: exit %d, stderr %q; want exit 2 saying %q", tt.args, got.code, got.stderr, tt.want)
		}
	}
}
