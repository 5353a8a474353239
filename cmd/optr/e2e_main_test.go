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
// it, launcherBin, the sandbox launcher optr starts from there.
var optrBin, launcherBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "optr-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	optrBin = filepath.Join(dir, "optr")
	launcherBin = filepath.Join(dir, "optr-sandbox-launcher")
	build := exec.Command("go", "build", "-o", dir, ".", "../optr-sandbox-launcher")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build optr and its sandbox launcher:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
