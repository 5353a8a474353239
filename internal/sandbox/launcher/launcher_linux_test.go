package launcher

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// abi is this kernel's Landlock ABI; tests that need Landlock skip
// without it (the sandbox package reports that layer as not enforced).
func abi(t *testing.T) int {
	t.Helper()
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		t.Skipf("no Landlock here: %v", err)
	}
	return v
}

// run starts script under spec through the launcher and returns its
// combined output and the launch error.
func run(t *testing.T, script string, spec Spec, p Process) (string, error) {
	t.Helper()
	return runVia(t, Wrap, script, spec, p)
}

// runVia is run with wrapper in Wrap's place.
func runVia(t *testing.T, wrapper func(*exec.Cmd, Spec, Process) (*Launch, error), script string, spec Spec, p Process) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_, lerr := launch(t, wrapper, cmd, spec, p)
	werr := cmd.Wait()
	if lerr != nil {
		return out.String(), lerr
	}
	if werr != nil {
		t.Logf("exit: %v", werr)
	}
	return out.String(), nil
}

// launch wraps cmd with wrapper under spec and p and starts it; the
// proxy's listener the launcher hands back, if any, answers "from the
// proxy" until the test ends. It returns the launch and the error of
// its start.
func launch(t *testing.T, wrapper func(*exec.Cmd, Spec, Process) (*Launch, error), cmd *exec.Cmd, spec Spec, p Process) (*Launch, error) {
	t.Helper()
	l, err := wrapper(cmd, spec, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		t.Fatal(err)
	}
	ln, err := l.Started(t.Context())
	if ln != nil {
		t.Cleanup(func() { ln.Close() })
		serve(ln, "from the proxy\n")
	}
	return l, err
}

// serve answers every connection to ln with msg, until ln is closed.
func serve(ln net.Listener, msg string) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(msg))
			c.Close()
		}
	}()
}

// answering listens on the host's loopback and answers every connection
// with msg until the test ends; it returns the address.
func answering(t *testing.T, msg string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serve(ln, msg)
	return ln.Addr().String()
}

func systemDirs() []string {
	return []string{"/usr", "/bin", "/lib", "/lib64", "/etc", "/proc", "/dev"}
}

// The program writes only where the rules say, reads only what they say,
// and so does a child that detached itself with setsid.
func TestLandlockConfinesTheProgramAndItsDescendants(t *testing.T) {
	v := abi(t)
	own, other := t.TempDir(), t.TempDir()
	secret := filepath.Join(other, "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Spec{ABI: v, FS: &FSRules{ReadDirs: systemDirs(), WriteDirs: []string{own}, WriteFiles: []string{"/dev/null"}}}
	script := `cd ` + own + `
echo mine > mine && echo wrote-own
echo theirs > ` + other + `/theirs 2>/dev/null && echo wrote-other
cat ` + secret + ` 2>/dev/null && echo read-secret
setsid sh -c 'echo late > ` + other + `/late 2>/dev/null && echo daemon-wrote; cat ` + secret + ` 2>/dev/null' </dev/null
`
	out, err := run(t, script, spec, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote-own") {
		t.Errorf("the program could not write its own directory: %q", out)
	}
	for _, bad := range []string{"wrote-other", "read-secret", "s3cret", "daemon-wrote"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: the confinement leaked: %q", bad, out)
		}
	}
	// The same script unconfined does all of it: the test can fail.
	out, err = run(t, script, Spec{}, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrote-other", "s3cret", "daemon-wrote"} {
		if !strings.Contains(out, want) {
			t.Errorf("without rules, %s should happen: %q", want, out)
		}
	}
}

// dial runs the test binary as a client of addr through the launcher.
func dial(t *testing.T, addr string, spec Spec, p Process) string {
	t.Helper()
	out, _ := runSelf(t, helperVar+"="+addr, spec, p)
	return out
}

// hostSecret is what a service on the host's loopback answers.
const hostSecret = "host secret service\n"

// In a namespace of its own, the program reaches the parent's listener on
// 127.0.0.1:<port> and nothing on the host's loopback.
func TestNamespaceReachesOnlyTheProxy(t *testing.T) {
	if _, err := Probe(t.Context(), Spec{Net: NetNamespace, ProxyPort: 3128}, Process{NewNet: true, UID: -1}); err != nil {
		t.Skipf("no user and network namespaces here: %v", err)
	}
	host := answering(t, hostSecret)
	spec := Spec{Net: NetNamespace, ProxyPort: 3128}
	p := Process{NewNet: true, UID: -1}
	if out := dial(t, "127.0.0.1:3128", spec, p); out != "read: from the proxy\n" {
		t.Errorf("the proxy's port: %q", out)
	}
	if out := dial(t, host, spec, p); !strings.HasPrefix(out, "dial error:") {
		t.Errorf("the host's loopback was reachable from the namespace: %q", out)
	}
	// Without the namespace the same dial reaches the host: the test can fail.
	if out := dial(t, host, Spec{}, Process{UID: -1}); out != "read: "+hostSecret {
		t.Errorf("unconfined: %q", out)
	}
}

// With Landlock's TCP rules instead, only the proxy's port can be
// connected to.
func TestLandlockTCPAllowsOnlyTheProxyPort(t *testing.T) {
	if abi(t) < 4 {
		t.Skip("Landlock ABI < 4 has no TCP rules")
	}
	host := answering(t, hostSecret)
	proxy := answering(t, hostSecret)
	_, port, _ := net.SplitHostPort(proxy)
	var n int
	fmt.Sscan(port, &n)
	spec := Spec{ABI: abi(t), Net: NetLandlock, ProxyPort: n}
	if out := dial(t, proxy, spec, Process{UID: -1}); out != "read: "+hostSecret {
		t.Errorf("the proxy's port: %q", out)
	}
	if out := dial(t, host, spec, Process{UID: -1}); !strings.Contains(out, "permission denied") {
		t.Errorf("another port was reachable: %q", out)
	}
}

func TestExecFailureIsReported(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), "/bin/sh")
	cmd.Path = "/nonexistent/program"
	_, err := launch(t, Wrap, cmd, Spec{}, Process{UID: -1})
	cmd.Wait()
	var le *Error
	if !asError(err, &le) || le.Stage != "exec" || !strings.Contains(le.Msg, "no such file") {
		t.Fatalf("err = %v, want an exec error", err)
	}
}

// A root optr's programs run as the unprivileged user, with no
// supplementary group and no capability, in a network namespace or not.
func TestProgramRunsAsTheUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root changes the program's user")
	}
	script := `id -u; id -G; grep CapEff /proc/self/status`
	for _, p := range []Process{{UID: 65534, GID: 65534}, {NewNet: true, UID: 65534, GID: 65534}} {
		spec := Spec{}
		if p.NewNet {
			spec = Spec{Net: NetNamespace, ProxyPort: 3128}
		}
		out, err := run(t, script, spec, p)
		if err != nil {
			t.Fatal(err)
		}
		if want := "65534\n65534\nCapEff:\t0000000000000000\n"; out != want {
			t.Errorf("netns %v: the program said %q, want %q", p.NewNet, out, want)
		}
	}
	// Without a user the program is root: the test can fail.
	if out, _ := run(t, script, Spec{}, Process{UID: -1}); strings.HasPrefix(out, "65534") {
		t.Errorf("unchanged user: %q", out)
	}
}

// The launcher's Go runtime runs with one P (GOMAXPROCS=1, set in its
// own environment only): the program's environment is the one it was
// given, without it.
func TestLauncherRunsWithOneP(t *testing.T) {
	script := `tr '\0' '\n' < /proc/$PPID/environ; echo ---; env`
	out, err := run(t, script, Spec{}, Process{UID: -1})
	if err != nil {
		t.Fatal(err)
	}
	launcher, program, ok := strings.Cut(out, "---\n")
	if !ok {
		t.Fatalf("output %q", out)
	}
	if !strings.Contains(launcher, "\nGOMAXPROCS=1\n") {
		t.Errorf("the launcher's environment is %q, want GOMAXPROCS=1 in it", launcher)
	}
	if strings.Contains(program, "GOMAXPROCS") || !strings.Contains(program, "PATH=/usr/bin:/bin") {
		t.Errorf("the program's environment is %q, want only what it was given", program)
	}
}

// unprivilegedVar makes the test binary an unprivileged optr: it makes
// itself non-dumpable, as optr does, and starts a program through a
// launcher in a user and network namespace of its own.
const unprivilegedVar = "LAUNCHER_TEST_UNPRIVILEGED"

func unprivilegedLaunch() int {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Println("dumpable:", err)
		return 1
	}
	ctx := context.Background()
	spec := Spec{Net: NetNamespace, ProxyPort: 3128}
	p := Process{NewNet: true, UID: -1}
	if _, err := Probe(ctx, spec, p); err != nil {
		fmt.Println("probe:", err)
		return 1
	}
	cmd := exec.Command("/bin/sh", "-c", "id -u; grep CapEff /proc/self/status")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	l, err := Wrap(cmd, spec, p)
	if err != nil {
		fmt.Println("wrap:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		fmt.Println("start:", err)
		return 1
	}
	ln, err := l.Started(ctx)
	if err != nil {
		cmd.Wait()
		fmt.Println("started:", err)
		return 1
	}
	ln.Close()
	go l.Watch(func(Event) {})
	if err := cmd.Wait(); err != nil {
		fmt.Println("wait:", err, out.String())
		return 1
	}
	fmt.Print(out.String())
	return 0
}

// A non-root, non-dumpable optr starts a launcher in a user and network
// namespace of its own: the launcher maps its ids itself (optr may not
// write the maps of a child of a non-dumpable process), and the program
// runs as optr's uid with no capability.
func TestUnprivilegedOptrStartsANamespacedLauncher(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the test becomes an unprivileged user: it runs as root")
	}
	if _, err := Probe(t.Context(), Spec{Net: NetNamespace, ProxyPort: 3128}, Process{NewNet: true, UID: 65534, GID: 65534}); err != nil {
		t.Skipf("no user and network namespaces for an unprivileged user here: %v", err)
	}
	p := Process{UID: 65534, GID: 65534}
	cmd := exec.CommandContext(t.Context(), selfFor(t, p))
	cmd.Env = []string{unprivilegedVar + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := "65534\nCapEff:\t0000000000000000\n"; string(out) != want {
		t.Errorf("the program said %q, want %q", out, want)
	}
}
