package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

// gateConfig has one agent that marks its start and a hard `command`
// check whose program exists nowhere, as `go test ./...` in an image
// without Go.
const gateConfig = `agents:
  good:
    provider: command
    run: [sh, -c, 'touch agent-started; printf "# Title\n\nfine\n"']
constraints:
  tests:
    check: command
    run: [optr-no-such-go, test, ./...]
    hard: true
`

// gateRefused checks what issue 27 item 1 asks of the binary: exit 2
// naming the config file, its line and the key, no agent started and
// nothing recorded.
func gateRefused(t *testing.T, ws string, code int, stderr string) {
	t.Helper()
	if code != 2 {
		t.Fatalf("exit %d, want 2\nstderr:\n%s", code, stderr)
	}
	for _, want := range []string{"optr.yml:8", "constraints.tests.run[0]", `"optr-no-such-go"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "agent-started")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an agent started before the check was refused (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".optr", "ledger.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused run was recorded (%v)", err)
	}
}

// TestRunRefusesAHardCheckThatCannotRun runs the binary as a user does:
// `optr run` with a hard check whose program is missing stops before any
// agent (issue 27 item 1).
func TestRunRefusesAHardCheckThatCannotRun(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(gateConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(optrBin, "run", "--config", "optr.yml", "--intent", "Fix the bug", "--interactive", "never")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	gateRefused(t, ws, code, stderr.String())
}

// TestActionRefusesAHardCheckThatCannotRun is the same in the Action: the
// job fails with exit 2 before any agent, and nothing is committed.
func TestActionRefusesAHardCheckThatCannotRun(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "2701")
	r.File(".github/optr.yml", gateConfig)
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "gate", "intent": "Fix the bug", "constraints": ""}
	})
	res := r.run()
	gateRefused(t, r.Workspace, res.code, res.stderr)
	if head := gh.Head(repo, ledgerBranch); head != "" {
		t.Errorf("the refused run committed %s", head)
	}
}
