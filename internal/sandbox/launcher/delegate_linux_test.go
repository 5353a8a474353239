package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// library starts d the way the Copilot SDK starts its CLI: its own
// exec.Command with d's Path, the arguments and environment it chose plus
// d.Env, a working directory, its own pipes, and no SysProcAttr.
func library(t *testing.T, d *Delegation, dir string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(d.Path, args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "LIBRARY_SET=yes"}, d.Env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("from the library\n")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// A program a library starts through a Delegation runs confined: with the
// library's arguments, environment (without the shim's variable), working
// directory and pipes, under the Landlock rules; its exit status is the
// shim's. Without rules the same program writes outside, so the test can
// fail.
func TestDelegatedProgramRunsConfined(t *testing.T) {
	v := abi(t)
	own, other := t.TempDir(), t.TempDir()
	script := filepath.Join(own, "program.sh")
	if err := os.WriteFile(script, []byte(`read -r line; echo "stdin: $line"
echo "args: $*"; echo "dir: $(pwd)"
env | grep -q LIBRARY_SET && echo library-env
env | grep -q `+ShimMarker+` && echo shim-var-leaked
echo x > `+other+`/theirs 2>/dev/null && echo wrote-other
echo x > `+own+`/mine && echo wrote-own
exit 7
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, confined := range []bool{true, false} {
		spec := Spec{}
		if confined {
			spec = Spec{ABI: v, FS: &FSRules{ReadDirs: systemDirs(), WriteDirs: []string{own}, WriteFiles: []string{"/dev/null"}}}
		}
		d, err := Delegate("/bin/sh", spec, Process{UID: -1})
		if err != nil {
			t.Fatal(err)
		}
		cmd, out := library(t, d, own, script, "--headless", "--stdio")
		ln, err := d.Started(t.Context())
		if ln != nil {
			ln.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		werr := cmd.Wait()
		d.Close()
		if cmd.ProcessState.ExitCode() != 7 {
			t.Errorf("the shim exited %v, want the program's 7\n%s", werr, out)
		}
		got := out.String()
		for _, want := range []string{"stdin: from the library", "args: --headless --stdio", "dir: " + own, "library-env", "wrote-own"} {
			if !strings.Contains(got, want) {
				t.Errorf("confined=%t: the program's output lacks %q:\n%s", confined, want, got)
			}
		}
		if strings.Contains(got, "shim-var-leaked") {
			t.Errorf("the program saw %s:\n%s", ShimMarker, got)
		}
		if confined == strings.Contains(got, "wrote-other") {
			t.Errorf("confined=%t: wrote outside its directory = %t:\n%s", confined, !confined, got)
		}
	}
}

// A launch the launcher refuses comes back to optr as an *Error, and the
// shim exits without starting the program.
func TestDelegatedStartFailureIsReported(t *testing.T) {
	d, err := Delegate("/nonexistent/program", Spec{}, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cmd, out := library(t, d, t.TempDir())
	_, err = d.Started(t.Context())
	_ = cmd.Wait()
	var le *Error
	if !asError(err, &le) || le.Stage != "exec" {
		t.Fatalf("Started = %v, want an exec *Error\n%s", err, out)
	}
	if cmd.ProcessState.ExitCode() != 126 {
		t.Errorf("the shim exited %d, want 126", cmd.ProcessState.ExitCode())
	}
}

// The library stops the program by killing what it started, the shim:
// the program ends with it (the launcher's parent-death signal), and so
// does what the program left behind.
func TestKillingTheShimEndsTheProgram(t *testing.T) {
	d, err := Delegate("/bin/sh", Spec{}, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(d.Path, "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 300`)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, d.Env...)
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := d.Started(t.Context()); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(r, &pid); err != nil {
		t.Fatalf("the program's child: %v", err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The pidfd becomes readable when the process ends; the test's
	// deadline bounds the wait.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("poll: %d %v", n, err)
		}
		return
	}
}
