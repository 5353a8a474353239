package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// optrBin is the binary under test, built once by TestMain the way users
// build it, so the end-to-end tests exercise exactly what ships; beside
// it, launcherBin, the sandbox launcher optr starts from there; and
// adversaryBin, the adversarial agent's tool (testdata/adversary).
var optrBin, launcherBin, adversaryBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "optr-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Every user may run them: the fields run optr as another user.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	optrBin = filepath.Join(dir, "optr")
	launcherBin = filepath.Join(dir, "optr-sandbox-launcher")
	adversaryBin = filepath.Join(dir, "adversary")
	build := exec.Command("go", "build", "-o", dir, ".", "../optr-sandbox-launcher", "./testdata/adversary")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build optr and its sandbox launcher:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
