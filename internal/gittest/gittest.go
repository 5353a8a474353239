// Package gittest makes real git repositories for tests: a script runner
// with a fixed identity and no user configuration, and a repository with
// given files committed on main.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env makes commits reproducible and independent of the user's git
// configuration.
var Env = []string{
	"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
}

// Sh runs a shell script in dir with Env, fails the test when it fails,
// and returns its output, trimmed.
func Sh(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (slash-separated path → content) below dir.
func Write(t testing.TB, dir string, files map[string]string) {
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

// Repo returns a new repository in a temporary directory holding files,
// committed on main.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Sh(t, dir, "git init -q -b main .")
	Write(t, dir, files)
	Sh(t, dir, "git add -A && git commit -q -m base")
	return dir
}
