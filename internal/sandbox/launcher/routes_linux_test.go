package launcher

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/testkit/fieldtest"
)

// routesVar makes the test binary try every route out of the seccomp
// layer (targets, JSON) and print one line per route: "route: ok" or
// "route: error".
const routesVar = "LAUNCHER_TEST_ROUTES"

// targets are what the routes aim at.
type targets struct {
	Proxy    string // the one address allowed: a TCP listener answering "from the proxy"
	Other    string // a TCP listener on another address, the proxy's port
	Loopback string // a TCP listener of the test's on 127.0.0.1
	UDP      string // a UDP listener
	Abstract string // an abstract Unix socket's name, without the leading zero byte
	Unix     string // a Unix socket outside the program's directories
	Own      string // the program's own directory
	Planted  string // a Unix socket in it that another user bound
	Victim   int    // a process outside, which no signal may reach
}

// tryRoutes is the program: each route is tried, and said.
func tryRoutes(spec string) {
	var tg targets
	if err := json.Unmarshal([]byte(spec), &tg); err != nil {
		fmt.Println("bad spec:", err)
		os.Exit(2)
	}
	say := func(route string, err error) {
		if err != nil {
			fmt.Printf("%s: %v\n", route, err)
			return
		}
		fmt.Printf("%s: ok\n", route)
	}
	secret := []byte("s3cret-key")
	say("tcp-proxy", hears("tcp", tg.Proxy, "from the proxy\n"))
	// As C programs often do: the address in a sockaddr_storage, its
	// whole size as the length.
	say("tcp-proxy-storage", func() error {
		sa := inet4(tg.Proxy)
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		var storage [128]byte
		binary.NativeEndian.PutUint16(storage[0:], unix.AF_INET)
		binary.BigEndian.PutUint16(storage[2:], uint16(sa.Port))
		copy(storage[4:8], sa.Addr[:])
		if _, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&storage[0])), uintptr(len(storage))); errno != 0 {
			return errno
		}
		b := make([]byte, 64)
		n, _ := unix.Read(fd, b)
		if string(b[:n]) != "from the proxy\n" {
			return fmt.Errorf("read %q", b[:n])
		}
		return nil
	}())
	sendTCP := func(proto int, addr string) error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, proto)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Connect(fd, inet4(addr)); err != nil {
			return err
		}
		_, err = unix.Write(fd, secret)
		return err
	}
	say("tcp-other", sendTCP(0, tg.Other))
	say("tcp-loopback", sendTCP(0, tg.Loopback))
	// A server of its own on the IPv6 wildcard, V6ONLY, at the port of
	// the test's IPv4 server: a connect to 127.0.0.1 there reaches the
	// test's, not the program's.
	say("tcp-loopback-v6only", func() error {
		fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return err
		}
		if err := unix.Bind(fd, &unix.SockaddrInet6{Port: inet4(tg.Loopback).Port}); err != nil {
			return err
		}
		if err := unix.Listen(fd, 1); err != nil {
			return err
		}
		return sendTCP(0, tg.Loopback)
	}())
	// A server of its own on loopback, as a test suite starts one.
	say("tcp-own-server", ownServer("tcp", "127.0.0.1:0"))
	say("mptcp", sendTCP(unix.IPPROTO_MPTCP, tg.Other))
	say("udp", func() error {
		c, err := net.Dial("udp", tg.UDP)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write(secret)
		return err
	}())
	say("fastopen", func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, secret, unix.MSG_FASTOPEN, inet4(tg.Other))
	}())
	for _, s := range []struct {
		route             string
		family, typ, prot int
	}{
		{"icmp", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP},
		{"raw", unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_RAW},
		{"packet", unix.AF_PACKET, unix.SOCK_RAW, 0},
		{"netlink", unix.AF_NETLINK, unix.SOCK_RAW, 0},
		{"vsock", unix.AF_VSOCK, unix.SOCK_STREAM, 0},
		{"unix-dgram", unix.AF_UNIX, unix.SOCK_DGRAM, 0},
	} {
		fd, err := unix.Socket(s.family, s.typ, s.prot)
		if err == nil {
			unix.Close(fd)
		}
		say(s.route, err)
	}
	say("io_uring", func() error {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	}())
	sendUnix := func(name string) error {
		c, err := net.Dial("unix", name)
		if err != nil {
			return err
		}
		return c.Close()
	}
	say("abstract", sendUnix("@"+tg.Abstract))
	say("unix-path", sendUnix(tg.Unix))
	say("unix-planted", sendUnix(tg.Planted))
	link := filepath.Join(tg.Own, "link.sock")
	say("unix-symlink", func() error {
		if err := os.Symlink(tg.Unix, link); err != nil {
			return err
		}
		return sendUnix(link)
	}())
	say("unix-own", ownServer("unix", filepath.Join(tg.Own, "own.sock")))
	say("kill-own-child", func() error {
		cmd := exec.Command("/bin/sleep", "30")
		if err := cmd.Start(); err != nil {
			return err
		}
		err := cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		return err
	}())
	say("kill", unix.Kill(tg.Victim, unix.SIGKILL))
	say("tgkill", unix.Tgkill(tg.Victim, tg.Victim, unix.SIGKILL))
	say("kill-group", unix.Kill(-tg.Victim, unix.SIGKILL))
	say("kill-all", unix.Kill(-1, 0)) // signal 0: only asks; -1 with a real signal would end the machine's processes
	say("setown", func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETOWN, tg.Victim)
		return err
	}())
}

// inet4 is addr, an IPv4 host:port, as a socket address.
func inet4(addr string) *unix.SockaddrInet4 {
	ap := netip.MustParseAddrPort(addr)
	return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
}

// hears connects to addr on network and reads it to the end: the error
// is the connection's, or that it did not say want.
func hears(network, addr, want string) error {
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	if string(b) != want {
		return fmt.Errorf("read %q", b)
	}
	return nil
}

// ownServer is a server of the program's own on addr, as a test suite
// starts one: it listens, and connects to itself.
func ownServer(network, addr string) error {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	serve(ln, "own\n")
	return hears(network, ln.Addr().String(), "own\n")
}

// victim is a process outside the launcher, in a process group of its
// own, which the test ends.
func victim(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// alive reports whether the victim has not been killed: it is not a
// zombie, and not gone.
func alive(cmd *exec.Cmd) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// routes runs tryRoutes through the launcher under spec and p, and
// returns each route's line and the events the launcher reported.
func routes(t *testing.T, tg targets, spec Spec, p Process) (map[string]string, []Event) {
	t.Helper()
	b, _ := json.Marshal(tg)
	out, events := runSelf(t, routesVar+"="+string(b), spec, p)
	got := map[string]string{}
	for line := range strings.Lines(out) {
		if route, res, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
			got[route] = res
		}
	}
	return got, events
}

// runSelf runs the test binary, with env its one variable, through the
// launcher under spec and p; it returns the binary's combined output
// and the events the launcher reported.
func runSelf(t *testing.T, env string, spec Spec, p Process) (string, []Event) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), selfFor(t, p))
	cmd.Env = []string{env}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	l, err := launch(t, Wrap, cmd, spec, p)
	if err != nil {
		cmd.Wait()
		t.Fatal(err)
	}
	var events []Event
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		l.Watch(func(e Event) { events = append(events, e) })
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	<-watched
	return out.String(), events
}

// selfFor is the test binary, as a file p's user may run: a copy in a
// directory every user may enter when that is not the test's own user.
func selfFor(t *testing.T, p Process) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if p.UID < 0 {
		return self
	}
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, filepath.Base(self))
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return copied
}

// The seccomp layer: the one allowed address connects, through the
// launcher, and nothing else leaves — no other address on the proxy's
// port, no UDP, ICMP, MPTCP, raw, packet, netlink or vsock socket, no
// TCP fast open, no io_uring, no abstract or outside Unix socket (a
// symbolic link to one included), no signal outside; the program's own
// Unix socket and its own child still work. Without the layer the same
// program reaches them all, so the test can fail.
func TestSeccompLayer(t *testing.T) {
	proxy := answering(t, "from the proxy\n")
	_, port, _ := net.SplitHostPort(proxy)
	other := fieldtest.ListenConns(t, "tcp", "127.0.0.2:"+port)
	loopback := fieldtest.ListenConns(t, "tcp", "127.0.0.1:0")
	udp := fieldtest.ListenPackets(t, "")
	abstract := "optr-launcher-test-" + strconv.Itoa(os.Getpid())
	abs := fieldtest.ListenConns(t, "unix", "@"+abstract)
	// Directories every user may enter, a socket every user may connect
	// to: only the layer stands between the program and it.
	base := t.TempDir()
	outside, own := filepath.Join(base, "outside"), filepath.Join(base, "own")
	for _, d := range []string{outside, own} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
	}
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	sock := fieldtest.ListenConns(t, "unix", filepath.Join(outside, "docker.sock"))
	os.Chmod(sock.Addr, 0o777)
	planted := fieldtest.ListenConns(t, "unix", filepath.Join(own, "planted.sock"))
	os.Chmod(planted.Addr, 0o777)
	counters := map[string]*fieldtest.Counter{"tcp-other/mptcp": other, "tcp-loopback": loopback, "udp": udp, "abstract": abs, "unix": sock}

	type run struct {
		name  string
		layer bool
		proc  Process
	}
	runs := []run{{"on", true, Process{UID: -1}}, {"off", false, Process{UID: -1}}}
	if os.Geteuid() == 0 {
		// A root launcher, the program as nobody: the launcher reads the
		// program's memory with its file-system credentials, as it must
		// in Docker, where root has no CAP_SYS_PTRACE.
		runs = append(runs, run{"on/nobody", true, Process{UID: 65534, GID: 65534}})
	}
	for _, rn := range runs {
		layer := rn.layer
		t.Run(rn.name, func(t *testing.T) {
			for _, c := range counters {
				c.Reset()
			}
			os.Remove(filepath.Join(own, "link.sock"))
			v := victim(t)
			tg := targets{Proxy: proxy, Other: other.Addr, Loopback: loopback.Addr, UDP: udp.Addr, Abstract: abstract,
				Unix: sock.Addr, Own: own, Planted: planted.Addr, Victim: v.Process.Pid}
			spec := Spec{}
			if layer {
				spec.Seccomp = &SeccompRules{Connect: []string{proxy}, UnixDirs: []string{own}, Signals: true}
			}
			got, events := routes(t, tg, spec, rn.proc)
			for _, r := range []string{"tcp-proxy", "tcp-proxy-storage", "tcp-own-server", "unix-own", "kill-own-child"} {
				if got[r] != "ok" {
					t.Errorf("%s: %q, want ok: the layer must not break what the program may do", r, got[r])
				}
			}
			refused := []string{"tcp-other", "tcp-loopback", "tcp-loopback-v6only", "mptcp", "udp", "fastopen", "icmp", "raw", "packet", "netlink", "vsock",
				"unix-dgram", "io_uring", "abstract", "unix-path", "unix-symlink", "kill", "tgkill", "kill-group", "kill-all", "setown"}
			// A socket in the program's directory that another user bound
			// (a hard link to the Docker socket, say) is not its own.
			if rn.proc.UID >= 0 && (got["unix-planted"] == "ok" || planted.N() > 0) {
				t.Errorf("unix-planted: %q: a socket another user bound in the program's directory was reached", got["unix-planted"])
			}
			planted.Reset()
			if !layer {
				// What the kernel itself allows a root program here; the
				// rest (vsock, raw sockets in a container) it may refuse.
				for _, r := range []string{"tcp-other", "tcp-loopback", "udp", "abstract", "unix-path", "unix-symlink", "kill", "kill-all", "setown"} {
					if got[r] != "ok" {
						t.Errorf("without the layer %s: %q, want ok: the test proves nothing", r, got[r])
					}
				}
				if other.N() == 0 || udp.N() == 0 || abs.N() == 0 || sock.N() == 0 || alive(v) {
					t.Errorf("without the layer the listeners heard tcp %d, udp %d, abstract %d, unix %d, the victim alive %v: the test proves nothing",
						other.N(), udp.N(), abs.N(), sock.N(), alive(v))
				}
				return
			}
			for _, r := range refused {
				if got[r] == "ok" || got[r] == "" {
					t.Errorf("%s: %q, want refused", r, got[r])
				}
			}
			for name, c := range counters {
				if n := c.N(); n > 0 {
					t.Errorf("%s: the listener heard %d", name, n)
				}
			}
			if !alive(v) {
				t.Error("a signal reached the victim")
			}
			// The refusals with a target are reported.
			var seen []string
			for _, e := range events {
				if e.Kind == "signal" {
					seen = append(seen, e.Kind+" "+strconv.Itoa(e.Target))
				} else {
					seen = append(seen, e.Kind+" "+e.Addr)
				}
			}
			all := strings.Join(seen, "\n")
			for _, want := range []string{"connect " + other.Addr, "connect unix:@" + abstract, "connect unix:" + sock.Addr, "signal " + strconv.Itoa(v.Process.Pid), "signal -" + strconv.Itoa(v.Process.Pid), "signal -1"} {
				if !strings.Contains(all, want) {
					t.Errorf("no event for %s in:\n%s", want, all)
				}
			}
		})
	}
}
