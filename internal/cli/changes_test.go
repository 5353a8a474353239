package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

const applyConfig = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt; echo alpha done"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo world > world.txt; echo beta done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: apply }
`

// applyWorkspace is a repository holding greet.txt and the config, made
// the working directory.
func applyWorkspace(t *testing.T, extra string) string {
	t.Helper()
	ws := gittest.Repo(t, map[string]string{"greet.txt": "hello\n", "optr.yml": applyConfig + extra, ".gitignore": ".optr/\n"})
	t.Chdir(ws)
	return ws
}

// optr run with changes.mode apply: each agent works in its own worktree,
// the command check runs there, and only π*'s change (beta's) reaches the
// working tree and index.
func TestRunAppliesOnlyTheSelectedChange(t *testing.T) {
	ws := applyWorkspace(t, "")
	r := optr(t, "run", "--config", "optr.yml", "--intent", "greet the world")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "π* = beta") || !strings.Contains(r.stdout, "applied π*'s change") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain; cat greet.txt world.txt"); got != "M  greet.txt\nA  world.txt\nhello, world\nworld" {
		t.Errorf("the working tree:\n%s", got)
	}
}

// A run that pauses for approval changes nothing until the human chose;
// optr resume --choose 1 (Proceed) applies π*'s change then.
func TestResumeAppliesAfterTheHumanChose(t *testing.T) {
	ws := applyWorkspace(t, "checkpoints: { before-commit: true }\n")
	r := optr(t, "run", "--config", "optr.yml", "--intent", "greet the world", "--json")
	if r.code != ExitPaused {
		t.Fatalf("exit %d, want %d (paused)\n%s\n%s", r.code, ExitPaused, r.stdout, r.stderr)
	}
	var out Outcome
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.CheckpointID == "" {
		t.Fatalf("outcome %v: %s", err, r.stdout)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain"); got != "" {
		t.Fatalf("the paused run changed the working tree:\n%s", got)
	}
	r = optr(t, "resume", "--config", "optr.yml", "--checkpoint", out.CheckpointID, "--choose", "1")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := gittest.Sh(t, ws, "git status --porcelain; cat greet.txt"); got != "M  greet.txt\nA  world.txt\nhello, world" {
		t.Errorf("the working tree after resume:\n%s", got)
	}
}
