package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestAHardCheckThatCannotRunStopsTheRun checks issue 27 item 1: a hard
// `go test ./...` gate on a machine without Go was unverified on every
// output, so the run selected a result, exited 0 and its table said OK
// yes. It is refused before any agent starts (exit 2), naming the
// constraint, the config file and line; no agent runs, nothing is recorded.
func TestAHardCheckThatCannotRunStopsTheRun(t *testing.T) {
	demoWorkspace(t)
	const cfg = `agents:
  good:
    provider: command
    run: [sh, -c, 'touch agent-started; printf "# Title\n\nfine\n"']
constraints:
  tests:
    check: command
    run: [optr-no-such-go, test, ./...]
    hard: true
`
	if err := os.WriteFile("gate.yml", []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	got := optr(t, "run", "--config", "gate.yml", "--intent", "Fix the bug", "--run-id", "g1")
	if got.code != ExitUsage {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got.code, ExitUsage, got.stdout, got.stderr)
	}
	for _, want := range []string{"gate.yml:8", "constraints.tests.run[0]", `"optr-no-such-go" was not found in PATH`} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got.stderr)
		}
	}
	if _, err := os.Stat("agent-started"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an agent started before the check was refused (%v)", err)
	}
	if _, err := os.Stat(".optr/ledger.jsonl"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused run was recorded (%v)", err)
	}
}
