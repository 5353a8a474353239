package procgroup

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperOptr stands in for an optr process: it starts a command group
// whose leader starts a background child, prints "<leader> <child>", and
// waits to be killed.
func TestHelperOptr(t *testing.T) {
	if os.Getenv("PROCGROUP_HELPER") != "1" {
		t.Skip("helper process for TestKilledOwner")
	}
	cmd := exec.CommandContext(context.Background(), "sh", "-c", `sleep 300 & echo "$$ $!"; wait`)
	cmd.Stdout = os.Stdout
	New(cmd, time.Second)
	if err := cmd.Start(); err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	// Wait to be killed. A bare select{} would be a deadlock the runtime
	// reports (ending the helper before its child printed); a goroutine
	// waiting for signals keeps it alive.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
}

// When optr is killed with SIGKILL, the leader of each group it started
// dies with it (parent-death signal), and Reap, at the next start, kills
// what the leader had started; nothing is left.
//
// Every optr run on the machine reaps such orphans, and so do the other
// packages' tests running at the same time (each pipeline run starts with
// Reap): one of them may kill this test's orphan first. A trial where the
// orphan was already dead when this Reap missed it proves nothing and is
// run again; a miss while the orphan still runs fails at once.
func TestKilledOwner(t *testing.T) {
	// Become a subreaper, so the helper's orphans are reparented to this
	// test and their end can be waited for instead of polled.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); errno != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	const trials = 5
	for i := range trials + 1 {
		if i == trials {
			t.Fatalf("another process reaped the orphan first in all %d trials", trials)
		}
		if reapedOrphan(t) {
			break
		}
		t.Log("another process reaped the orphan first; trying again")
	}
	// Our own groups are never reaped.
	mine := exec.CommandContext(t.Context(), "sleep", "300")
	g := New(mine, time.Second)
	if err := mine.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mine.Process.Kill(); _ = mine.Wait(); g.Finish() }()
	got, err := Reap(t.Context())
	if err != nil || slices.Contains(got.Processes, mine.Process.Pid) {
		t.Fatalf("Reap killed a group of a live optr: %v, %v", got, err)
	}
}

// reapedOrphan runs one trial of TestKilledOwner: it starts a helper optr
// whose group leader has a background child, kills the helper, and checks
// that the leader died with it and that Reap kills the orphaned child. It
// reports false when the trial was inconclusive: the child was not among
// Reap's kills because it was dead already (killed by another process's
// Reap).
func reapedOrphan(t *testing.T) bool {
	t.Helper()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperOptr$")
	helper.Env = append(os.Environ(), "PROCGROUP_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var leader, child int
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, serr := fmt.Sscan(line, &leader, &child); err != nil || serr != nil {
		_ = helper.Process.Kill()
		t.Fatalf("helper said %q: %v %v", line, err, serr)
	}
	_ = helper.Process.Signal(syscall.SIGKILL)
	_ = helper.Wait()

	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(leader, &ws, 0, nil); err != nil {
		t.Fatalf("wait for the leader: %v", err)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("leader ended with %v, want killed by SIGKILL (parent-death signal)", ws)
	}
	if pid, err := syscall.Wait4(child, &ws, syscall.WNOHANG, nil); err != nil || pid != 0 {
		t.Fatalf("the leader's child ended already (pid %d, %v): the test proves nothing", pid, err)
	}
	got, err := Reap(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Processes, child) {
		// Only this test waits for the child (it is its subreaper), so a
		// child that ended is a zombie until then.
		if f, ok := statFields(child); !ok || len(f) == 0 || f[0] != "Z" {
			t.Fatalf("Reap killed %v, and the orphan %d still runs", got.Processes, child)
		}
		_, _ = syscall.Wait4(child, &ws, 0, nil)
		return false
	}
	if _, err := syscall.Wait4(child, &ws, 0, nil); err != nil || !ws.Signaled() {
		t.Fatalf("the orphan did not end by a signal: %v, %v", ws, err)
	}
	return true
}

// ownerOf reads an environment larger than its buffer to its end, and a
// buffer used again holds nothing of the environment read before it.
func TestOwnerOfReadsTheWholeEnvironment(t *testing.T) {
	start := func(env ...string) int {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "sleep", "300")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	pad := "PAD=" + strings.Repeat("x", 100<<10) // one string may not pass 128 KiB
	big := start(pad, "A"+pad, "B"+pad, ownerVar+"=123:456")
	small := start("PATH=/usr/bin")
	buf, owner, ok := ownerOf(big, nil)
	if !ok || owner != "123:456" {
		t.Fatalf("ownerOf(a 300 KiB environment) = %q, %v; want 123:456, true", owner, ok)
	}
	if _, owner, ok := ownerOf(small, buf); ok {
		t.Fatalf("ownerOf(an environment without %s) = %q, true, with the buffer of the one before", ownerVar, owner)
	}
}
