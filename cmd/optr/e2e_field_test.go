//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/procgroup/proctest"
	"github.com/optr-dev/optr/internal/testkit/fieldtest"
)

// The routes of issue 34 the adversary adds in the field: UDP, DNS, an
// ICMP ping socket, MPTCP, an abstract socket, a socket standing in for
// docker.sock (its group is optr's user's), a file only that group may
// read, a signal to a process of
// optr's user standing in for the runner's worker, TCP to the proxy's
// port on another address (the agent reads the port from HTTPS_PROXY; the
// test then listens there), and, last, a signal to optr itself. The tool
// exits 0 when a route got through; the listeners say what arrived. One
// thing it must still do: reach a server of its own on loopback.
const fieldRoutes = `T=$TOOL
$T own-server 0 && echo OWN-SERVER-REACHED
$T udp $UDP $SECRET && leak udp
$T dns $DNS $SECRET && leak dns
$T icmp 127.0.0.1 $SECRET && leak icmp
$T mptcp $SERVICE $SECRET && leak mptcp
$T unix @$ABSTRACT $SECRET && leak abstract
$T unix $DOCKERSOCK $SECRET && leak docker-sock
$T kill $VICTIM 9 && leak signal-runner
cat "$GROUPFILE" 2>/dev/null | grep -q "$SECRET" && leak group-file
if [ -n "$OPTR_AGENT" ]; then
  read -r _ < "$MARK/elsewhere.fifo"
  $T tcp $ELSEWHERE:${HTTPS_PROXY##*:} $SECRET && leak proxy-port-elsewhere
fi
`

// fieldLast is the adversary's last attempt: it sends optr SIGKILL.
const fieldLast = `[ -n "$OPTR_AGENT" ] && $T kill-optr 0 9 && leak signal-optr
`

// The users of the non-root fields: optr's, and the group that owns the
// stand-in for docker.sock, which optr's user is in.
const (
	fieldUID    = 2001
	fieldGID    = 2001
	socketGroup = 2002
)

// field is one environment the adversarial test runs optr in.
type field struct {
	name string
	env  fieldtest.Env
	// ldflags build the field's launcher (Landlock capped at ABI 4).
	ldflags string
	// net is the layer that holds egress there.
	net string
	// off is how the protection is taken away: "seccomp" (a launcher
	// built without its seccomp layer) or "mode" (sandbox.mode off); leaks
	// are the routes that must then get through, and strict the layer
	// strict mode then refuses ("" when it is not run).
	off    string
	leaks  []string
	strict string
	// refuses is the layer strict mode refuses even with every
	// protection in place ("groups": a non-root optr without sudo).
	refuses string
	// sudo lets optr's user run anything as root through sudo without a
	// password (withSudo), as on the hosted runner: its launchers then
	// start agents as its user without its supplementary groups.
	sudo bool
}

const abi4 = "-X github.com/optr-dev/optr/internal/sandbox/launcher/child.maxABI=4"

const seccompOff = "-X github.com/optr-dev/optr/internal/sandbox/launcher/child.disabled=seccomp"

// fields are the four environments of issue 34.
var fields = []field{{
	// (a) CI's machine: root, namespaces. The namespace, Landlock and the
	// unprivileged user hold; with the sandbox off every route is open.
	// (HTTPS_PROXY is not set then: the proxy's port is no route.)
	name: "root-namespaces", net: "netns", off: "mode",
	leaks: []string{"udp", "dns", "mptcp", "abstract", "docker-sock", "signal-runner", "signal-optr"},
}, {
	// (b) The container action: Docker's default seccomp profile and
	// capabilities applied to optr (no namespace). Without the seccomp
	// layer, Landlock's TCP rule (ABI 7 here) lets the proxy's port on
	// any address through, and UDP, DNS and MPTCP.
	name: "docker", env: fieldtest.Env{Docker: true}, net: "seccomp", off: "seccomp",
	leaks: []string{"udp", "dns", "mptcp", "proxy-port-elsewhere"}, strict: "net",
}, {
	// (c) A non-root optr in the group that owns the socket, user
	// namespaces granted: the namespace holds the network (the launcher
	// maps its own ids), but not Unix sockets by path.
	// No sudo: agents keep the group, which strict refuses.
	name: "nonroot-userns", env: fieldtest.Env{UID: fieldUID, GID: fieldGID, Groups: []int{socketGroup}},
	net: "netns", off: "seccomp", leaks: []string{"docker-sock"}, strict: "scope", refuses: "groups",
}, {
	// (d) The hosted runner: non-root, in the socket's group, user
	// namespaces refused, Landlock capped at ABI 4 (kernel 6.8). Without
	// the seccomp layer everything but the files is open.
	name: "runner-abi4", env: fieldtest.Env{UID: fieldUID, GID: fieldGID, Groups: []int{socketGroup}, NoUserNS: true},
	ldflags: abi4, net: "seccomp", off: "seccomp",
	leaks:  []string{"udp", "dns", "mptcp", "abstract", "docker-sock", "signal-runner", "proxy-port-elsewhere", "signal-optr"},
	strict: "net", refuses: "groups",
}, {
	// (c) and (d) with sudo, as the hosted runner has it: the launcher
	// runs as root (sudo), so it has a network namespace of its own
	// without a user namespace, and starts the agent as optr's user
	// without the group (TestGroupsDroppedThroughSudo takes it away).
	name: "runner-sudo", env: fieldtest.Env{UID: fieldSudoUID, GID: fieldSudoUID, Groups: []int{socketGroup}, NoUserNS: true},
	ldflags: abi4, net: "netns", off: "seccomp", sudo: true,
	leaks: []string{"signal-runner", "signal-optr"}, strict: "scope",
}}

// fieldSudoUID is the user of the field with sudo: one of this test
// process's own, since the sudo rights it gets are the machine's.
var fieldSudoUID = 20000 + os.Getpid()%10000

// TestAdversaryInTheField (issue 34): the adversary tries every route in
// each environment, through the binary. With every protection nothing
// reaches a listener, no signal lands, and strict mode runs; with the
// protection taken away the routes it holds are open and strict mode
// refuses, naming the layer.
func TestAdversaryInTheField(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the fields are reproduced as root (fieldtest)")
	}
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			if f.sudo {
				withSudo(t, f.env.UID)
			}
			bin, err := launcherBuild(f.ldflags)
			if err != nil {
				t.Fatalf("build the field's launcher: %v", err)
			}
			t.Run("protected", func(t *testing.T) {
				mode := "strict"
				if f.refuses != "" {
					h := newFieldHostile(t, f, "strict", false)
					run := h.run(t, bin)
					if run.code != 2 || !strings.Contains(run.log, "sandbox.mode is strict, but on this machine ") || !strings.Contains(run.log, f.refuses+": ") {
						t.Errorf("strict ran (exit %d), want exit 2 naming %s:\n%s", run.code, f.refuses, run.log)
					}
					mode = "auto"
				}
				h := newFieldHostile(t, f, mode, false)
				run := h.run(t, bin)
				if run.code == 2 || !strings.Contains(run.log, "sandbox ("+mode+"):") {
					t.Fatalf("%s refused to run (exit %d) where every layer holds:\n%s", mode, run.code, run.log)
				}
				groups := "kept"
				if f.env.UID == 0 || f.sudo {
					groups = "dropped"
				}
				if !strings.Contains(run.log, ", groups "+groups) {
					t.Errorf("the log does not say groups %s:\n%s", groups, run.log)
				}
				if !strings.Contains(run.log, "net "+f.net+",") {
					t.Errorf("the log does not say net %s:\n%s", f.net, run.log)
				}
				if leaks := h.fieldLeaks(t, run); len(leaks) > 0 {
					t.Errorf("the adversary got through: %v\n%s", leaks, run.log)
				}
				record := findFile(t, filepath.Join(h.ws, ".optr"), "adversary.json")
				// What the layers must not take away: a server of the
				// agent's own on loopback, as its test suite starts one.
				if !strings.Contains(record, "OWN-SERVER-REACHED") {
					t.Errorf("the agent could not reach a server of its own on loopback:\n%s", record)
				}
				for _, want := range []string{`"allowed": false`, `"host": "unix:`} {
					if !strings.Contains(record, want) {
						t.Errorf("the adversary's network record lacks %s:\n%s", want, record)
					}
				}
			})
			t.Run("unprotected", func(t *testing.T) {
				b, mode := bin, "auto"
				if f.off == "mode" {
					mode = "off"
				} else if b, err = launcherBuild(strings.TrimSpace(f.ldflags + " " + seccompOff)); err != nil {
					t.Fatalf("build the launcher without its seccomp layer: %v", err)
				}
				h := newFieldHostile(t, f, mode, false)
				run := h.run(t, b)
				leaks := h.fieldLeaks(t, run)
				for _, want := range f.leaks {
					if !slices.Contains(leaks, want) {
						t.Errorf("without the protection %s should get through; got %v: the test proves nothing\n%s", want, leaks, run.log)
					}
				}
				if f.strict == "" {
					return
				}
				h = newFieldHostile(t, f, "strict", false)
				run = h.run(t, b)
				if run.code != 2 || !strings.Contains(run.log, "sandbox.mode is strict, but on this machine "+f.strict+": ") {
					t.Errorf("strict ran without the seccomp layer (exit %d), want exit 2 naming %s:\n%s", run.code, f.strict, run.log)
				}
			})
		})
	}
}

// TestGroupsDroppedThroughSudo (issue 34 item 2): with sudo, optr's
// agents run without its user's supplementary groups, and that alone
// keeps them from what only those groups may open: a file (its directory
// in sandbox.read, so Landlock lets it be read) and a Unix socket (the
// launcher built without its seccomp layer). Without sudo — its drop-in
// removed — the same agent reads the file and connects, and strict
// refuses, naming the groups.
func TestGroupsDroppedThroughSudo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the fields are reproduced as root (fieldtest)")
	}
	i := slices.IndexFunc(fields, func(f field) bool { return f.sudo })
	f := fields[i]
	b, err := launcherBuild(strings.TrimSpace(f.ldflags + " " + seccompOff))
	if err != nil {
		t.Fatalf("build the launcher without its seccomp layer: %v", err)
	}
	revoke := withSudo(t, f.env.UID)
	h := newFieldHostile(t, f, "auto", true)
	h.spareOptr(t)
	run := h.run(t, b)
	if !strings.Contains(run.log, ", groups dropped") {
		t.Errorf("the log does not say groups dropped:\n%s", run.log)
	}
	leaks := h.fieldLeaks(t, run)
	for _, route := range []string{"group-file", "docker-sock"} {
		if slices.Contains(leaks, route) {
			t.Errorf("with the groups dropped %s got through: %v\n%s", route, leaks, run.log)
		}
	}

	revoke()
	h = newFieldHostile(t, f, "auto", true)
	h.spareOptr(t)
	run = h.run(t, b)
	if !strings.Contains(run.log, ", groups kept") || !strings.Contains(run.log, "sudo -n could not start the sandbox launcher as root") {
		t.Errorf("without sudo the log does not say groups kept, and why:\n%s", run.log)
	}
	leaks = h.fieldLeaks(t, run)
	for _, route := range []string{"group-file", "docker-sock"} {
		if !slices.Contains(leaks, route) {
			t.Errorf("without sudo %s should get through; got %v: the test proves nothing\n%s", route, leaks, run.log)
		}
	}
	h = newFieldHostile(t, f, "strict", true)
	run = h.run(t, b)
	if run.code != 2 || !strings.Contains(run.log, "groups: agents keep optr's supplementary groups ("+strconv.Itoa(socketGroup)+")") {
		t.Errorf("strict ran without sudo (exit %d), want exit 2 naming the groups:\n%s", run.code, run.log)
	}
}

// withSudo lets uid run anything as root through sudo without a
// password, as the hosted runner's user may: a user of that uid in
// /etc/passwd (sudo refuses a uid without one) and a drop-in in
// /etc/sudoers.d, both removed when the test ends, also when it fails.
// revoke removes the drop-in before: sudo then asks for a password, which
// sudo -n refuses. It skips where sudo is not installed (Debian's sudo
// package; .ci/run installs it).
func withSudo(t *testing.T, uid int) (revoke func()) {
	t.Helper()
	for _, tool := range []string{"sudo", "useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install sudo passwd): the field with sudo is not reproduced", tool)
		}
	}
	name := "optr-e2e-" + strconv.Itoa(uid)
	dropIn := filepath.Join("/etc/sudoers.d", name)
	_ = exec.Command("userdel", "--force", name).Run() // a run killed before its cleanup
	add := exec.Command("useradd", "--no-create-home", "--no-user-group", "--gid", "65534", "--home-dir", "/nonexistent",
		"--shell", "/usr/sbin/nologin", "--uid", strconv.Itoa(uid), name)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v\n%s", err, out)
	}
	revoke = func() {
		if err := os.Remove(dropIn); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("remove %s: %v", dropIn, err)
		}
	}
	t.Cleanup(func() {
		revoke()
		if out, err := exec.Command("userdel", "--force", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v\n%s", name, err, out)
		}
	})
	// Written beside it first: sudo skips a name with a dot, and reads
	// the drop-in only once it is whole.
	tmp := filepath.Join("/etc/sudoers.d", "."+name)
	if err := os.WriteFile(tmp, []byte("#"+strconv.Itoa(uid)+" ALL=(ALL) NOPASSWD: ALL\n"), 0o440); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dropIn); err != nil {
		os.Remove(tmp)
		t.Fatal(err)
	}
	return revoke
}

// launcherBuilds are optr's executable beside a launcher built with
// ldflags, by ldflags ("" is the launcher as shipped).
var launcherBuilds sync.Map

// launcherBuild is optr (a hard link to the binary under test) with a
// launcher built with ldflags beside it: optr finds its launcher there,
// and the build identity ignores link flags.
func launcherBuild(ldflags string) (string, error) {
	if ldflags == "" {
		return optrBin, nil
	}
	type built struct {
		once sync.Once
		bin  string
		err  error
	}
	v, _ := launcherBuilds.LoadOrStore(ldflags, &built{})
	b := v.(*built)
	b.once.Do(func() {
		dir, err := os.MkdirTemp(filepath.Dir(optrBin), "launcher-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			b.err = err
			return
		}
		build := exec.Command("go", "build", "-o", dir+"/", "-ldflags", ldflags, "../optr-sandbox-launcher")
		if out, err := build.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("%v: %s", err, out)
			return
		}
		b.bin = filepath.Join(dir, "optr")
		b.err = os.Link(optrBin, b.bin)
	})
	return b.bin, b.err
}

// elsewhereIP is the loopback address, not 127.0.0.1, on which the test
// listens at the agent's proxy port: one of this test process's own, for
// in a namespace that port is always ProxyPort (3128), and another test
// process may listen there at the same time.
var elsewhereIP = func() string {
	pid := os.Getpid()
	return fmt.Sprintf("127.2.%d.%d", (pid>>8)&0xff, 1+(pid&0xff)%254)
}()

// fieldHostiles counts the fieldHostiles made: each listens on an
// abstract socket of its own.
var fieldHostiles atomic.Int64

// fieldHostile is hostile with the field's routes and listeners.
type fieldHostile struct {
	*hostile
	f                  field
	dir                string
	secret             string
	udp, dns, abstract *fieldtest.Counter
	sock               *fieldtest.Counter
	victim             *exec.Cmd
	// elsewhere is the listener on elsewhereIP at the agent's proxy port,
	// once the agent asked for it.
	elsewhere atomic.Pointer[fieldtest.Counter]
}

// newFieldHostile is the adversary's workspace, tools, listeners and
// victim for f, in sandbox mode. The file only the socket's group may
// read lies outside what the agent may read, unless groupRead puts its
// directory in sandbox.read: then only its group keeps it.
func newFieldHostile(t *testing.T, f field, mode string, groupRead bool) *fieldHostile {
	t.Helper()
	dir := t.TempDir()
	// optr's user and the agents' reach their directories.
	for d := dir; d != "/" && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &fieldHostile{hostile: newHostile(t, dir, ws, mode), f: f, dir: dir, secret: "fieldsecret" + strconv.Itoa(os.Getpid())}
	groupDir := filepath.Join(dir, "group")
	groupFile := filepath.Join(groupDir, "secret")
	if err := os.Mkdir(groupDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(groupFile, []byte(h.secret+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if groupRead {
		cfgPath := filepath.Join(ws, ".github", "optr.yml")
		cfg, err := os.ReadFile(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg = bytes.Replace(cfg, []byte("sandbox: { read: ["), []byte("sandbox: { read: ["+groupDir+", "), 1)
		if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.udp = fieldtest.ListenPackets(t, h.secret)
	h.dns = fieldtest.ListenPackets(t, h.secret)
	abstract := "optr-e2e-" + strconv.Itoa(os.Getpid()) + "-" + f.name + "-" + mode + "-" + strconv.FormatInt(fieldHostiles.Add(1), 10)
	h.abstract = fieldtest.ListenConns(t, "unix", "@"+abstract)
	sockDir := filepath.Join(dir, "run")
	if err := os.Mkdir(sockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.sock = fieldtest.ListenConns(t, "unix", filepath.Join(sockDir, "docker.sock"))
	// The runner's worker: a process of optr's user (of an agent's, where
	// optr is root).
	victimUID := 65534
	if f.env.UID != 0 {
		victimUID = f.env.UID
	}
	h.victim = exec.Command("/bin/sleep", "300")
	h.victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: uint32(victimUID), Gid: uint32(victimUID)}}
	if err := h.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.victim.Process.Kill(); h.victim.Wait() })
	// A daemon of the adversary that outlived an optr the adversary
	// killed (with the protection off): it left with setsid, so its group
	// is its own.
	t.Cleanup(func() {
		for _, pid := range proctest.Tagged("adversary-daemon-" + h.mark) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	tools := filepath.Join(dir, "tools")
	tool := filepath.Join(tools, "adversary")
	b, err := os.ReadFile(adversaryBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tool, b, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(h.mark, "elsewhere.fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(fifo, 0o666)
	script := strings.Replace(adversary, "DONE=$(mktemp -u)", fieldRoutes+"DONE=$(mktemp -u)", 1)
	script = strings.Replace(script, "echo adversary done", fieldLast+"echo adversary done", 1)
	known := strings.NewReplacer("$ENVTOKEN_HEAD", envToken[:12], "$RUNTIME_HEAD", runtimeToken[:12],
		"$OUTSIDE", h.outside, "$WS", ws, "$SERVICE", h.service, "$MARK", h.mark, "$TOOL", tool,
		"$UDP", h.udp.Addr, "$DNS", h.dns.Addr, "$ABSTRACT", abstract, "$DOCKERSOCK", h.sock.Addr,
		"$VICTIM", strconv.Itoa(h.victim.Process.Pid), "$SECRET", h.secret, "$ELSEWHERE", elsewhereIP,
		"$GROUPFILE", groupFile)
	if err := os.WriteFile(filepath.Join(tools, "adversary.sh"), []byte(known.Replace(script)), 0o644); err != nil {
		t.Fatal(err)
	}
	if f.env.UID != 0 {
		err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, f.env.UID, f.env.GID)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The stand-in for docker.sock: root's, its group optr's user's (root's
	// where optr is root), as Docker's is.
	group := 0
	if f.env.UID != 0 {
		group = socketGroup
	}
	if err := os.Chown(h.sock.Addr, 0, group); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(h.sock.Addr, 0o660); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(groupFile, 0, group); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(groupFile, 0o640); err != nil {
		t.Fatal(err)
	}
	return h
}

// spareOptr takes the adversary's last attempt, the signal to optr, out
// of its script: without the seccomp layer it lands, and optr, killed,
// records none of the routes the adversary reports.
func (h *fieldHostile) spareOptr(t *testing.T) {
	t.Helper()
	p := filepath.Join(h.dir, "tools", "adversary.sh")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(fieldLast)) {
		t.Fatalf("the adversary's script lacks its last attempt:\n%s", b)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(fieldLast), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fieldRun is one optr run in a field.
type fieldRun struct {
	log    string
	code   int
	killed bool // optr ended by SIGKILL: the adversary's signal landed
}

// run runs bin as runCLI does, in the field, answering the agent's
// request for a listener elsewhere on its proxy's port.
func (h *fieldHostile) run(t *testing.T, bin string) fieldRun {
	t.Helper()
	cmd := h.start(t, h.dir, bin)
	h.f.env.Wrap(t, cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	fifo := filepath.Join(h.mark, "elsewhere.fifo")
	stopElsewhere := func() {}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		// Opening to write returns once the agent opened it to read: it
		// runs, and its environment says its proxy's port.
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		if port := agentProxyPort(h.dir); port != "" {
			c := fieldtest.ListenConns(t, "tcp", elsewhereIP+":"+port)
			h.elsewhere.Store(c)
			stopElsewhere = c.Close
		}
		f.WriteString("go\n")
	}()
	err := cmd.Run()
	// An agent that never asked (strict refused, or the run ended): the
	// writer is let go.
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		<-answered
		r.Close()
	}
	stopElsewhere() // its port may be the next run's (3128 in a namespace)
	run := fieldRun{log: out.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		run.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			run.killed = true
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return run
}

// agentProxyPort is the port of HTTPS_PROXY in the environment of the
// running adversary agent whose script lies under dir, "" when there is
// none.
func agentProxyPort(dir string) string {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		if cmdline, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); err != nil || !bytes.Contains(cmdline, []byte(dir)) {
			continue
		}
		b, err := os.ReadFile(p)
		b = append([]byte{0}, b...)
		if err != nil || !bytes.Contains(b, []byte("\x00OPTR_AGENT=adversary\x00")) {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, "HTTPS_PROXY="); ok {
				return v[strings.LastIndexByte(v, ':')+1:]
			}
		}
	}
	return ""
}

// fieldLeaks are hostile's leaks and the field's routes that got through:
// what reached a listener, a signal that landed.
func (h *fieldHostile) fieldLeaks(t *testing.T, run fieldRun) []string {
	t.Helper()
	leaks := h.leaks(t)
	for route, n := range map[string]int64{"udp": h.udp.N(), "dns": h.dns.N(), "mptcp": h.mptcp.Load(),
		"abstract": h.abstract.N(), "docker-sock": h.sock.N()} {
		if n > 0 && !slices.Contains(leaks, route) {
			leaks = append(leaks, route)
		}
	}
	if e := h.elsewhere.Load(); e != nil && e.N() > 0 && !slices.Contains(leaks, "proxy-port-elsewhere") {
		leaks = append(leaks, "proxy-port-elsewhere")
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(h.victim.Process.Pid) + "/stat"); err != nil || strings.Contains(string(b), ") Z ") {
		leaks = append(leaks, "signal-runner")
	}
	if run.killed && !slices.Contains(leaks, "signal-optr") {
		leaks = append(leaks, "signal-optr")
	}
	return leaks
}

// TestNothingOutlivesOptrUnderSudo: a launcher started through sudo is
// sudo's child, and the kernel clears the parent-death signal that would
// tie sudo to optr when it executes the set-user-ID sudo. Killed, optr
// still takes its agent along: the launcher sees optr's end of its
// control socket close. A launcher built without that watch leaves the
// agent running, so the test can fail.
func TestNothingOutlivesOptrUnderSudo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the fields are reproduced as root (fieldtest)")
	}
	f := fields[slices.IndexFunc(fields, func(f field) bool { return f.sudo })]
	withSudo(t, f.env.UID)
	for _, watched := range []bool{true, false} {
		name := "watched"
		ldflags := f.ldflags
		if !watched {
			name = "unwatched"
			ldflags += " -X github.com/optr-dev/optr/internal/sandbox/launcher/child.disabled=control"
		}
		t.Run(name, func(t *testing.T) {
			bin, err := launcherBuild(strings.TrimSpace(ldflags))
			if err != nil {
				t.Fatalf("build the launcher: %v", err)
			}
			tag := "optr-e2e-sudo-orphan-" + strconv.Itoa(os.Getpid()) + "-" + name
			t.Cleanup(func() {
				for _, pid := range proctest.Tagged(tag) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			dir := t.TempDir()
			for d := dir; d != "/" && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
				_ = os.Chmod(d, 0o755)
			}
			ws, tools := filepath.Join(dir, "ws"), filepath.Join(dir, "tools")
			for _, d := range []string{ws, tools} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The agent blocks on the FIFO: once it reads, it runs.
			fifo := filepath.Join(tools, "ready.fifo")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			script := filepath.Join(tools, "sleeper.sh")
			cfg := "agents:\n  sleeper: { provider: command, run: [sh, " + script + "], timeout: 120s }\n" +
				"sandbox: { mode: strict, read: [" + tools + "] }\n"
			// With an empty environment: no marker of optr's is left for
			// the sweep of a later optr's orphans (procgroup.Reap) that
			// other test binaries run at the same time.
			agentScript := "cat >/dev/null\nexec env -i sh -c 'read -r _ < \"$1\"' " + tag + " " + fifo + "\n"
			for p, s := range map[string]string{script: agentScript, filepath.Join(ws, "optr.yml"): cfg} {
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				return os.Lchown(p, f.env.UID, f.env.GID)
			}); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "run", "--config", "optr.yml", "--workflow", "sleeper", "--intent", "wait", "--interactive", "never")
			cmd.Dir = ws
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
			f.env.Wrap(t, cmd)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			w, exited := startAwaiting(t, cmd, fifo)
			if w == nil {
				t.Fatalf("optr ended before its agent ran: %v\n%s", <-exited, out.String())
			}
			defer w.Close() // open until the end: the agent reads no EOF
			agent := proctest.Tagged(tag)
			if len(agent) == 0 {
				t.Fatalf("the agent runs, but no process holds %s", tag)
			}
			_ = cmd.Process.Kill()
			<-exited
			// Ended at once when watched (the bound is for a loaded
			// machine); unwatched, it runs on while the test looks.
			bound := 20 * time.Second
			if !watched {
				bound = 3 * time.Second
			}
			left := stillRunning(t, agent, bound)
			if watched && len(left) > 0 {
				t.Errorf("the agent %v outlived optr, killed\n%s", left, out.String())
			}
			if !watched && len(left) == 0 {
				t.Errorf("without the launcher's watch the agent ended with optr: the test proves nothing\n%s", out.String())
			}
		})
	}
}

// stillRunning waits up to bound for each of pids to end, and returns
// those that did not.
func stillRunning(t *testing.T, pids []int, bound time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(bound)
	var left []int
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // ended already
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(max(time.Until(deadline), 0).Milliseconds()))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if n == 0 {
				left = append(left, pid)
			}
			break
		}
		unix.Close(fd)
	}
	return left
}
