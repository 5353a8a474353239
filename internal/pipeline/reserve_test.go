//go:build linux

package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

// TestResultFilesAreReservedWhileAgentsWork: an agent's result file is
// made (unnamed, datalake.Run.Reserve) while the agent works, not after
// it finished: the agent itself sees, among optr's open files, an
// unnamed file in agent-outputs/ before it answers.
func TestResultFilesAreReservedWhileAgentsWork(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "optr.yml")
	lake := filepath.Join(dir, ".optr")
	// The agent waits until its parent (optr) holds a file in its run's
	// agent-outputs/ — the reservation is made in the background as the
	// agent starts, so it may appear after the agent's first look —
	// until its timeout, which fails the test.
	outputs := filepath.Join(lake, "workflows", "w", "runs", "r1", "agent-outputs")
	cfgText := fmt.Sprintf(`sandbox: { mode: off }
agents:
  a: { provider: command, timeout: 20s, run: [sh, -c, 'until ls -l /proc/$PPID/fd 2>/dev/null | grep -qF "%s/#"; do :; done; echo reserved'] }
`, outputs)
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Config: cfg, Workflow: "w", RunID: "r1", Intent: "look", Datalake: lake,
		LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
	deps := Deps{Environ: []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}, Getenv: func(string) string { return "" }}
	rep, err := (&Driver{Deps: deps}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.result("a")
	if r == nil || strings.TrimSpace(r.Output) != "reserved" {
		t.Fatal("the agent never saw its result file reserved while it worked")
	}
	entries, err := os.ReadDir(filepath.Join(rep.RunDir, "agent-outputs"))
	if err != nil || len(entries) != 1 || entries[0].Name() != "a.json" {
		t.Errorf("agent-outputs holds %v (err %v), want a.json alone", entries, err)
	}
}
