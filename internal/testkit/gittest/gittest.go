// Package gittest makes real git repositories for tests: a script runner
// with a fixed identity and no user configuration, and a repository with
// given files committed on main.
package gittest

import (
	"encoding/base64"
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

// PersistCredentials configures repo as actions/checkout (v6 and later)
// does with persist-credentials: true (src/git-auth-helper.ts,
// configureToken): the token goes, as an AUTHORIZATION header, into
// git-credentials-<id>.config in runnerTemp, which the repository's
// configuration includes for its git directory and its linked worktrees
// (includeIf.gitdir), on the host and at the container's paths. With
// legacy true it writes the header into the repository's configuration
// itself, as actions/checkout v4 and earlier did. It returns the header's
// value.
func PersistCredentials(t testing.TB, repo, runnerTemp, token string, legacy bool) string {
	t.Helper()
	const key = "http.https://github.com/.extraheader"
	header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	if legacy {
		Sh(t, repo, "git config --local "+key+" '"+header+"'")
		return header
	}
	if err := os.MkdirAll(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(runnerTemp, "git-credentials-3f0c6a52-5d5e-4a8e-9f7d-0b7a3c2e1d4f.config")
	gitDir := filepath.ToSlash(filepath.Join(repo, ".git"))
	Sh(t, repo, strings.Join([]string{
		"git config --file '" + creds + "' " + key + " '" + header + "'",
		"git config --local 'includeIf.gitdir:" + gitDir + ".path' '" + creds + "'",
		"git config --local 'includeIf.gitdir:" + gitDir + "/worktrees/*.path' '" + creds + "'",
		"git config --local 'includeIf.gitdir:/github/workspace/.git.path' '/github/runner_temp/" + filepath.Base(creds) + "'",
		"git config --local 'includeIf.gitdir:/github/workspace/.git/worktrees/*.path' '/github/runner_temp/" + filepath.Base(creds) + "'",
		"git config --local url.https://github.com/.insteadOf git@github.com:",
	}, " && "))
	return header
}
