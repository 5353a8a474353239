package checkpoint

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// childEnv, when set, makes TestPromptInTerminal the program inside the
// terminal: it prompts on its own stdin and stdout and writes the decision
// to the file the variable names.
const childEnv = "OPTR_CHECKPOINT_PROMPT_RESULT"

// TestPromptInTerminal runs Prompt on a real pseudo-terminal: this test
// binary inside a private tmux server, driven by keystrokes, so that the
// terminal's line discipline (Enter sends CR, echo) is what Prompt reads.
// It is skipped when tmux is missing and with -short.
func TestPromptInTerminal(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		d, err := Prompt(t.Context(), os.Stdin, os.Stdout, fixture(t))
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		// Written aside and renamed, so the parent never reads half of it.
		if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("a terminal test; skipped with -short")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	result := filepath.Join(dir, "decision.json")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	child := "LANG=C.UTF-8 " + childEnv + "='" + result + "' '" + exe + "' -test.run='^TestPromptInTerminal$' -test.count=1; sleep 30"
	run("new-session", "-d", "-s", "prompt", "-x", "160", "-y", "50", child)
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })

	waitFor := func(s string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			screen := run("capture-pane", "-p", "-J", "-S", "-200", "-t", "prompt")
			if strings.Contains(screen, s) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q; it shows:\n%s", s, screen)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("[Enter = 1]:")
	waitFor("(recommended)")
	run("send-keys", "-t", "prompt", "7", "Enter")
	waitFor("There is no option 7")
	run("send-keys", "-t", "prompt", "Enter") // the recommended option
	waitFor("Chose 1) Proceed.")
	waitFor("Note (optional, Enter for none):")
	run("send-keys", "-t", "prompt", "-l", "looks fine")
	run("send-keys", "-t", "prompt", "Enter")

	deadline := time.Now().Add(20 * time.Second)
	var data []byte
	for {
		if data, err = os.ReadFile(result); err == nil && len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompt never answered; the terminal shows:\n%s", run("capture-pane", "-p", "-t", "prompt"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var got Decision
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := Decision{Option: 1, Action: ActionProceed, Note: "looks fine", Source: SourceTerminal}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decision at the terminal (-want +got):\n%s", diff)
	}
}
