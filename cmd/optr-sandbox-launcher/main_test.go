package main

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const child = "github.com/optr-dev/optr/internal/sandbox/launcher/child"

// The launcher links package child and what child needs, nothing more:
// each package it adds is loaded and initialised on every agent start.
func TestLinksOnlyPackageChild(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		return strings.Fields(string(out))
	}
	mine := slices.DeleteFunc(deps("."), func(p string) bool { return p == "github.com/optr-dev/optr/cmd/optr-sandbox-launcher" })
	if want := deps(child); !slices.Equal(mine, want) {
		t.Errorf("the launcher links %v\nwant only package child's %v", mine, want)
	}
}

// Started by hand, not by optr, it does nothing and says what it is for.
func TestByHandItSaysWhatItIsFor(t *testing.T) {
	bin := t.TempDir() + "/optr-sandbox-launcher"
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(t.Context(), bin).CombinedOutput()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "started by optr only") {
		t.Errorf("run by hand: %v, %q; want exit 2 and what it is for", err, out)
	}
}
