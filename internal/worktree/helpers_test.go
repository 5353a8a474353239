package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitEnv makes commits in tests reproducible and independent of the
// user's configuration.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
}

// sh runs a shell script in dir and fails the test when it fails.
func sh(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo returns a repository holding files, committed on main.
func newRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	sh(t, dir, "git init -q -b main .")
	write(t, dir, files)
	sh(t, dir, "git add -A && git commit -q -m base")
	return dir
}

func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// start starts a run on repo with its worktrees in a temporary root, and
// closes it when the test ends.
func start(t testing.TB, repo, runID string) *Run {
	t.Helper()
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(t.Context()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r
}

func add(t testing.TB, r *Run, agent string) *Tree {
	t.Helper()
	tr, err := r.Add(t.Context(), agent)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func capture(t testing.TB, tr *Tree, lim Limits) Change {
	t.Helper()
	ch, err := tr.Capture(t.Context(), lim)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}
