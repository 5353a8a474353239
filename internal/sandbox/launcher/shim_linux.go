package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/optr-dev/optr/internal/sandbox/launcher/child"
)

// The shim runs from this package's init, so that every binary that can
// delegate a start (optr, and the test binaries of the packages that do)
// serves as its own shim.
func init() {
	sock, ok := os.LookupEnv(ShimMarker)
	if !ok {
		return
	}
	os.Exit(shim(sock))
}

// shim is the shim's whole life (see Delegation): it returns the
// program's exit status, or 126 when the program could not be started
// (optr has been told why).
func shim(sock string) int {
	// The launcher's parent-death signal follows this thread.
	runtime.LockOSThread()
	_ = os.Unsetenv(ShimMarker)
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintf(os.Stderr, "optr sandbox shim: connect to optr: %v\n", err)
		return 126
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	var req shimRequest
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		return shimFail(conn, "spec", err)
	}
	cmd := exec.Command(req.Path, os.Args[1:]...)
	cmd.Env = os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Until the launcher takes its own parent-death signal over.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	l, err := Wrap(cmd, req.Spec, req.Process)
	if err != nil {
		return shimFail(conn, "spec", err)
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		return shimFail(conn, "exec", err)
	}
	ln, err := l.Started(context.Background())
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		stage := "exec"
		if le := (*Error)(nil); errors.As(err, &le) {
			stage, err = le.Stage, errors.New(le.Msg)
		}
		return shimFail(conn, stage, err)
	}
	if err := shimReply(conn, child.Reply{OK: true}, ln); err != nil {
		fmt.Fprintf(os.Stderr, "optr sandbox shim: answer optr: %v\n", err)
		_ = cmd.Process.Kill()
	}
	// What the launcher's seccomp layer refuses goes on to optr, until
	// the launcher ends.
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		l.Watch(func(e Event) { _ = shimReply(conn, child.Reply{Event: &e}, nil) })
	}()
	err = cmd.Wait()
	<-watched
	conn.Close()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 126
	}
	return 0
}

// shimFail tells optr why the program could not be started.
func shimFail(conn *net.UnixConn, stage string, err error) int {
	if rerr := shimReply(conn, child.Reply{Stage: stage, Error: err.Error()}, nil); rerr != nil {
		fmt.Fprintf(os.Stderr, "optr sandbox shim: %s: %v\n", stage, err)
	}
	return 126
}

// shimReply sends r, a line, with ln's descriptor attached, when there is
// one; the descriptor and ln are closed here.
func shimReply(conn *net.UnixConn, r child.Reply, ln net.Listener) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	var oob []byte
	if ln != nil {
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return err
		}
		defer f.Close()
		oob = unix.UnixRights(int(f.Fd()))
	}
	_, _, err = conn.WriteMsgUnix(b, oob, nil)
	return err
}
