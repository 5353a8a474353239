package launcher

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// optrAt makes dir/name a stand-in for optr's executable and returns its
// path (locate only looks at files).
func optrAt(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The launcher is Name beside optr's resolved executable, or optr itself;
// one in the working directory or on PATH is never taken, and one that
// is not an executable file is an error, not a reason to fall back.
func TestLocateTakesOnlyTheSiblingOfOptr(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	optr := optrAt(t, bin, "optr")
	// Elsewhere: the working directory and PATH hold a launcher.
	elsewhere := filepath.Join(dir, "elsewhere")
	optrAt(t, elsewhere, Name)
	t.Chdir(elsewhere)
	t.Setenv("PATH", elsewhere)
	exe := func() (string, error) { return optr, nil }

	p, err := locate(exe)
	if err != nil || p.launcher != optr || p.separate() {
		t.Fatalf("without a sibling: %+v, %v; want optr itself", p, err)
	}

	sibling := optrAt(t, bin, Name)
	p, err = locate(exe)
	if err != nil || p.launcher != sibling || p.optr != optr || !p.separate() {
		t.Fatalf("with a sibling: %+v, %v; want %s", p, err, sibling)
	}

	// optr reached through a symbolic link: the sibling of the file it
	// names counts, not one beside the link.
	links := filepath.Join(dir, "links")
	optrAt(t, links, Name)
	link := filepath.Join(links, "optr")
	if err := os.Symlink(optr, link); err != nil {
		t.Fatal(err)
	}
	p, err = locate(func() (string, error) { return link, nil })
	if err != nil || p.launcher != sibling || p.optr != optr {
		t.Fatalf("optr by a link: %+v, %v; want %s for %s", p, err, sibling, optr)
	}

	if err := os.Chmod(sibling, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = locate(exe)
	var ue *UnusableError
	if !errors.As(err, &ue) || ue.Launcher != sibling || !strings.Contains(err.Error(), "not an executable file") {
		t.Fatalf("a sibling that is not executable: %v; want an *UnusableError naming %s", err, sibling)
	}
}

// launcherSource is cmd/optr-sandbox-launcher, from this package.
var launcherSource = filepath.Join("..", "..", "..", "cmd", "optr-sandbox-launcher")

// separateLauncher builds cmd/optr-sandbox-launcher for the test, beside
// nothing: the tests hand it to wrap. Without tags its Build is the test
// binary's (neither carries VCS information); with tags it is a launcher
// of another build.
func separateLauncher(t *testing.T, tags string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), Name)
	args := []string{"build", "-buildvcs=false", "-o", bin}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.CommandContext(t.Context(), "go", append(args, launcherSource)...).CombinedOutput()
	if err != nil {
		t.Fatalf("build the launcher: %v\n%s", err, out)
	}
	return bin
}

// viaLauncher wraps with bin as the launcher of the test binary.
func viaLauncher(t *testing.T, bin string) func(*exec.Cmd, Spec, Process) (*Launch, error) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(cmd *exec.Cmd, spec Spec, p Process) (*Launch, error) {
		return wrap(cmd, spec, p, programs{launcher: bin, optr: self})
	}
}

// The separate launcher is the program's parent and confines it as optr
// itself does; the same script unconfined writes where it must not.
func TestSeparateLauncherConfines(t *testing.T) {
	v := abi(t)
	bin := separateLauncher(t, "")
	own, other := t.TempDir(), t.TempDir()
	script := `readlink /proc/$PPID/exe
echo mine > ` + own + `/mine && echo wrote-own
echo theirs > ` + other + `/theirs 2>/dev/null && echo wrote-other
`
	spec := Spec{ABI: v, FS: &FSRules{ReadDirs: systemDirs(), WriteDirs: []string{own}, WriteFiles: []string{"/dev/null"}}}
	out, err := runVia(t, viaLauncher(t, bin), script, spec, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	if parent, _, _ := strings.Cut(out, "\n"); parent != bin {
		t.Errorf("the program's parent is %q, want the separate launcher %s", parent, bin)
	}
	if !strings.Contains(out, "wrote-own") || strings.Contains(out, "wrote-other") {
		t.Errorf("the separate launcher did not confine the program as asked: %q", out)
	}
	out, err = runVia(t, viaLauncher(t, bin), script, Spec{}, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote-other") {
		t.Errorf("without rules the script should write the other directory: %q", out)
	}
}

// A launcher of another build follows nothing of the Spec: the launch is
// an *UnusableError naming both files, and the program never runs.
func TestLauncherOfAnotherBuildIsRefused(t *testing.T) {
	bin := separateLauncher(t, "optr_other_build")
	mark := filepath.Join(t.TempDir(), "ran")
	out, err := runVia(t, viaLauncher(t, bin), "echo ran > "+mark, Spec{}, Process{UID: -1})
	var ue *UnusableError
	if !errors.As(err, &ue) {
		t.Fatalf("launch through a launcher of another build: %v (%q); want an *UnusableError", err, out)
	}
	self, _ := os.Executable()
	for _, want := range []string{bin, self, "another build", "tags optr_other_build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the program ran under a launcher of another build")
	}
	// The same launch through a launcher of this build runs it: the test
	// can fail.
	if _, err := runVia(t, viaLauncher(t, separateLauncher(t, "")), "echo ran > "+mark, Spec{}, Process{UID: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the program did not run through a launcher of this build: %v", err)
	}
}
