package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/sandbox/env"
	"github.com/optr-dev/optr/internal/sandbox/launcher"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// Process is one program a Run starts.
type Process struct {
	// Name is the agent's or the check's name (records, directory names).
	Name string
	// Dir is its working directory; WriteDir lets it write there (an
	// agent's own repository), else it may only read it.
	Dir      string
	WriteDir bool
	// Write are other directories it may write (OPTR_OUTPUT_DIR, a
	// delegate report's directory); Read other files and directories it
	// may read (a previous stage's output).
	Write, Read []string
	// Env are its own variables (OPTR_*, the agent's env:), added last.
	Env []string
	// PassEnv names variables copied from optr's environment (pass-env).
	PassEnv []string
	// Program is the program it runs, as its command line names it: what
	// it needs to read besides itself (its package, where its links on
	// PATH lead: program.Install) is readable to it.
	Program string
	// Traffic, when set, hears every request it sends through the proxy
	// and every piece of data that comes back: signs of life for a
	// watcher. It may be called from several goroutines.
	Traffic func()
	// Local, when set, serves what the process sends to optr itself at
	// its proxy's address (Launch.Addr): the model gateway (architecture
	// §4.18), in process. It opens no address of its own: the proxy's
	// stays the only one the process may connect to (seccomp, Landlock
	// and the network namespace all hold it to that one).
	Local http.Handler
}

// Launch is one process of a Run: its environment and directories, then
// its confinement and its proxy session once started.
type Launch struct {
	r       *Run
	p       Process
	env     []string
	dir     string   // its HOME and TMPDIR, removed by Finish
	install []string // what its program needs to read (installOf)
	ln      net.Listener
	port    int // ln's port, when the process has no namespace
	session *proxy.Session
	// delegated is closed once a delegated start (Delegate) is over;
	// delegation and delegateErr are what it left.
	delegated   chan struct{}
	delegation  *launcher.Delegation
	delegateErr error
	// watched is closed once the launcher's reports of what its seccomp
	// layer refused are all in the session (the launcher ended).
	watched chan struct{}
}

// Command prepares p: a HOME and TMPDIR of its own and its environment.
// Call Finish when the process is over (also when Start failed).
func (r *Run) Command(p Process) (*Launch, error) {
	l := &Launch{r: r, p: p}
	if r != nil && !r.started {
		return nil, errors.New("sandbox: Command before Start")
	}
	if r.Off() {
		var environ []string
		if r != nil {
			environ = r.s.Environ
		}
		l.env = env.Merge(environ, p.Env)
		return l, nil
	}
	if err := l.makeDirs(); err != nil {
		l.Finish()
		return nil, err
	}
	if r.layers.Net != "netns" {
		// The seccomp layer, Landlock's TCP rule or nothing instead of a
		// namespace: a loopback port of this process's own, the only
		// address it may connect to.
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			l.Finish()
			return nil, fmt.Errorf("sandbox: listen for %s's proxy: %w", p.Name, err)
		}
		l.ln, l.port = ln, ln.Addr().(*net.TCPAddr).Port
	}
	proxyURL := l.Endpoint()
	e := env.Base(r.s.Environ)
	e = append(e,
		"HOME="+l.dir, "TMPDIR="+l.dir,
		"HTTPS_PROXY="+proxyURL, "HTTP_PROXY="+proxyURL, "https_proxy="+proxyURL, "http_proxy="+proxyURL,
		"NO_PROXY="+r.noProxy(), "no_proxy="+r.noProxy(),
	)
	if r.uid >= 0 {
		// The repositories it reads belong to another user: git would
		// refuse them as "dubious ownership". Trusting them harms only the
		// sandboxed process itself.
		e = append(e, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*")
	}
	for _, name := range p.PassEnv {
		if v, ok := env.Lookup(r.s.Environ, name); ok && !env.Credential(name) {
			e = append(e, name+"="+v)
		}
	}
	l.env = env.Merge(e, p.Env)
	l.install = installOf(p, l.env)
	if r.uid >= 0 {
		for _, d := range l.install {
			searchable(d)
		}
	}
	return l, nil
}

// Addr is Endpoint's host:port: where the process reaches the model
// gateway (Process.Local); "" with the sandbox off.
func (l *Launch) Addr() string {
	if l.r.Off() {
		return ""
	}
	return l.endpointAddr()
}

// Env is the process's whole environment.
func (l *Launch) Env() []string { return l.env }

// Endpoint is the one address the process may connect to, as a URL:
// its own session of the egress proxy (HTTPS_PROXY and HTTP_PROXY), which
// serves the model gateway too. It is 127.0.0.1:ProxyPort inside the
// process's network namespace, else a loopback port of its own; the
// seccomp layer lets connect reach nothing else. "" with the sandbox off.
func (l *Launch) Endpoint() string {
	if l.r.Off() {
		return ""
	}
	return "http://" + l.endpointAddr()
}

// endpointAddr is Endpoint's host:port.
func (l *Launch) endpointAddr() string {
	port := ProxyPort
	if l.port != 0 {
		port = l.port
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

// Start starts cmd (Path, Args, Dir and Env set; its SysProcAttr, from
// package procgroup, kept) confined, and serves its proxy. On an error
// the process was never started, or was killed and reaped: do not Wait.
func (l *Launch) Start(ctx context.Context, cmd *exec.Cmd) error {
	if l.r.Off() {
		return cmd.Start()
	}
	if l.r.direct {
		// Nothing confines a process here (architecture §4.14's table per
		// platform): its environment is built and its proxy served, no more.
		if err := cmd.Start(); err != nil {
			return err
		}
		l.serve(nil)
		return nil
	}
	spec, proc := l.confinement()
	launch, err := launcher.Wrap(cmd, spec, proc)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		launch.Close()
		return err
	}
	ln, err := launch.Started(ctx)
	if err != nil {
		killGroup(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return startError(err)
	}
	l.serve(ln)
	l.watch(launch.Watch)
	return nil
}

// watch records, in the process's session, what its seccomp layer
// refused, as watch reports it until the launcher ends.
func (l *Launch) watch(watch func(func(launcher.Event))) {
	l.watched = make(chan struct{})
	session := l.session
	go func() {
		defer close(l.watched)
		watch(func(e launcher.Event) {
			if session != nil {
				host, port := refusedAt(e)
				session.Refuse(host, port, e.Reason)
			}
		})
	}()
}

// refusedAt is where a refused event went, as a network record names
// it: a host and port; a Unix socket ("unix:/path", "unix:@name"), port
// 0; a signal's target process ("pid:1234", "pgid:56"), port 0.
func refusedAt(e launcher.Event) (string, int) {
	switch {
	case e.Kind == "signal" && e.Target < 0:
		return "pgid:" + strconv.Itoa(-e.Target), 0
	case e.Kind == "signal":
		return "pid:" + strconv.Itoa(e.Target), 0
	}
	if ap, err := netip.ParseAddrPort(e.Addr); err == nil {
		return ap.Addr().Unmap().String(), int(ap.Port())
	}
	return e.Addr, 0
}

// confinement is the launcher's Spec and Process for l.
func (l *Launch) confinement() (launcher.Spec, launcher.Process) {
	r := l.r
	spec := launcher.Spec{ABI: r.abi, ProxyPort: ProxyPort}
	if r.layers.FS != "none" {
		spec.FS = l.rules()
	}
	switch r.layers.Net {
	case "netns":
		spec.Net = launcher.NetNamespace
	case "seccomp", "landlock-tcp":
		if r.abi >= 4 {
			// Landlock's TCP rule: the layer itself, or the second one
			// behind the seccomp layer.
			spec.Net, spec.ProxyPort = launcher.NetLandlock, l.port
		}
	}
	if r.seccomp {
		spec.Seccomp = &launcher.SeccompRules{UnixDirs: l.ownDirs(), Signals: r.abi < 6}
		if r.layers.Net != "netns" {
			spec.Seccomp.Connect = []string{l.endpointAddr()}
		}
	}
	proc := launcher.Process{NewNet: spec.Net == launcher.NetNamespace, UID: r.uid, GID: r.gid}
	if r.sudo != "" {
		// Root's launcher, the program as optr's user without its groups.
		proc.Sudo, proc.UID, proc.GID = r.sudo, os.Getuid(), os.Getgid()
	}
	return spec, proc
}

// ownDirs are the directories only this process writes (its HOME and
// TMPDIR, its own repository), symbolic links resolved: a Unix socket its
// user bound there is one it may connect to. Not OPTR_OUTPUT_DIR, which
// the run's agents share.
func (l *Launch) ownDirs() []string {
	dirs := []string{l.dir}
	if l.p.WriteDir && l.p.Dir != "" {
		dirs = append(dirs, l.p.Dir)
	}
	for i, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			dirs[i] = real
		}
	}
	return dirs
}

// serve serves the proxy on ln, the listener the launcher handed back
// from the process's network namespace, else on l's own.
func (l *Launch) serve(ln net.Listener) {
	if ln == nil {
		ln = l.ln
	}
	if ln != nil {
		l.session = l.r.proxy.ServeLocal(ln, l.p.Traffic, l.p.Local)
		l.ln = nil
	}
}

// loopbackNames are the names of this machine a process reaches directly,
// not through the proxy (NO_PROXY): its own servers, such as a test's.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// noProxy is NO_PROXY: the loopback names, but none that sandbox.network
// lists. A listed loopback host is one the process must reach through the
// proxy: inside its network namespace (or under Landlock's TCP rules)
// nothing else is there, and every CLI obeys NO_PROXY — a listed
// localhost endpoint dialled directly is never reached.
func (r *Run) noProxy() string {
	var keep []string
	for _, name := range loopbackNames {
		listed := false
		for _, h := range r.s.Hosts {
			host := h
			if hp, _, err := net.SplitHostPort(h); err == nil {
				host = hp
			}
			if strings.EqualFold(strings.Trim(host, "[]"), name) {
				listed = true
				break
			}
		}
		if !listed {
			keep = append(keep, name)
		}
	}
	return strings.Join(keep, ",")
}

// startError is the StartError of a launch that failed.
func startError(err error) *StartError {
	var le *launcher.Error
	if errors.As(err, &le) && le.Stage == "exec" {
		return &StartError{Err: fmt.Errorf("%s (under the sandbox the program must be readable: under the system directories, PATH or sandbox.read)", le.Msg)}
	}
	return &StartError{Err: err}
}

// UnrecordedHost is the network record's entry saying that it may be
// incomplete: where the run's net layer is landlock-tcp or none, bytes
// could leave without the proxy, which records what it sees only.
const UnrecordedHost = "(direct connections)"

// StartError is a process the sandbox could not start confined.
type StartError struct{ Err error }

func (e *StartError) Error() string { return "sandbox: " + e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Finish ends the process's proxy session and removes its HOME and
// TMPDIR. It returns every host the process asked for, and the first
// refusal as an error (a *proxy.RefusedError): the caller decides what a
// refusal makes of the process (an agent's is recorded, not a failure;
// a command check's fails the check).
func (l *Launch) Finish() ([]proxy.Host, error) {
	var hosts []proxy.Host
	var refused error
	if l.delegated != nil {
		l.delegation.Close()
		<-l.delegated
		l.delegated = nil
		refused = l.delegateErr
	}
	if l.watched != nil {
		<-l.watched // the launcher ended: Finish comes after Wait
		l.watched = nil
	}
	if l.session != nil {
		hosts = l.session.Close()
		if refused == nil {
			refused = l.session.Refused()
		}
		l.session = nil
		if !l.r.layers.NetComplete() {
			hosts = append(hosts, proxy.Host{Host: UnrecordedHost, Allowed: true,
				Reason: "net " + l.r.layers.Net + ": connections that did not go through the proxy are not seen, so this list may be incomplete"})
		}
	}
	if l.ln != nil {
		l.ln.Close()
		l.ln = nil
	}
	if l.dir != "" {
		_ = os.RemoveAll(l.dir)
		l.dir = ""
	}
	return hosts, refused
}

// makeDirs makes the process's HOME, which is also its TMPDIR (one
// directory, not two: on a busy ext4 file system a new directory costs
// milliseconds of inode search), owned by the user it runs as, and lets
// that user reach its directories.
func (l *Launch) makeDirs() error {
	r := l.r
	dir, err := os.MkdirTemp(r.tempRoot(), "optr-sandbox-"+safeName(l.p.Name)+"-")
	if err != nil {
		return fmt.Errorf("sandbox: make %s's HOME: %w", l.p.Name, err)
	}
	l.dir = dir
	if r.uid < 0 {
		return nil
	}
	own := append([]string{dir}, l.p.Write...)
	for _, d := range own {
		if err := os.Lchown(d, r.uid, r.gid); err != nil {
			return fmt.Errorf("sandbox: give %s to uid %d: %w", d, r.uid, err)
		}
	}
	if l.p.WriteDir && l.p.Dir != "" {
		if err := chownTree(l.p.Dir, r.uid, r.gid); err != nil {
			return err
		}
	}
	for _, p := range append(append([]string{dir, l.p.Dir}, l.p.Write...), l.p.Read...) {
		searchable(p)
	}
	return nil
}

// chownTree gives every file under dir to uid:gid. A file that is
// theirs already is left alone: a chown changes a file's ctime even when
// its owner stays, and git (the agent's own, and optr's capture) would
// then read every file of a coding agent's tree again.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil {
			if u, g, ok := owner(fi); ok && u == uid && g == gid {
				return nil
			}
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return fmt.Errorf("sandbox: give %s to uid %d: %w", p, uid, err)
		}
		return nil
	})
}

// searchable lets every user pass through (not list) the directories
// above p that optr owns, so the unprivileged user reaches its own
// directories under optr's temporary ones. Directories of other owners
// are left as they are.
func searchable(p string) {
	if p == "" {
		return
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return
	}
	me := os.Geteuid()
	for d := filepath.Dir(abs); d != "/" && d != "."; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return
		}
		if u, _, ok := owner(fi); !ok || u != me {
			continue
		}
		if fi.Mode().Perm()&0o001 == 0 {
			_ = os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
}

// safeName keeps a name fit for a directory name.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, strings.ToLower(name))
}
