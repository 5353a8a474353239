package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// connecterSource connects to os.Args[1] os.Args[2] times, one after the
// other, as a client library does (net.Dial: a non-blocking connect), and
// prints each connect's time in microseconds. With "own" for the address
// it connects to a server of its own on loopback, as a test suite does.
const connecterSource = `package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	addr := os.Args[1]
	if addr == "own" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		addr = ln.Addr().String()
	}
	for range n {
		start := time.Now()
		c, err := net.Dial("tcp", addr)
		took := time.Since(start)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c.Close()
		fmt.Println(float64(took.Nanoseconds()) / 1000)
	}
}
`

// supervisedConnect is S2, what the seccomp layer adds to a connect: a
// program connects n times to a loopback listener through the launcher,
// with the layer (its supervisor reads the address, connects and puts its
// socket in the program's place) and without, in alternating order; the
// value is the difference of the median connect times, as the median
// over the runs (goal ≤ 0.2 ms).
func supervisedConnect(ctx context.Context, dir string, n, runs int) ([]row, error) {
	prog, err := buildProgram(ctx, dir, "connecter", connecterSource)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	layer := launcher.Spec{Seccomp: &launcher.SeccompRules{Connect: []string{addr}}}
	var rows []row
	for _, target := range []struct{ addr, what string }{
		{addr, "the proxy (a loopback listener)"},
		{"own", "a server of the program's own on loopback (a test suite's)"},
	} {
		var added, with, without []float64
		for rep := range runs {
			var sup, direct []float64
			steps := []func() error{
				func() (err error) { sup, err = connects(ctx, prog, target.addr, n, layer); return err },
				func() (err error) { direct, err = connects(ctx, prog, target.addr, n, launcher.Spec{}); return err },
			}
			for i := range steps {
				if err := steps[(rep+i)%2](); err != nil {
					return nil, err
				}
			}
			s, d := quantile(sup, 0.5), quantile(direct, 0.5)
			with, without, added = append(with, s), append(without, d), append(added, s-d)
		}
		a := spreadOf(added)
		rows = append(rows, row{id: "S2",
			what:     fmt.Sprintf("a connect supervised by the seccomp layer: its added time, %d connects to %s, median", n, target.what),
			measured: fmt.Sprintf("supervised %s ms, direct %s ms", spreadOf(with).format("%.3f"), spreadOf(without).format("%.3f")),
			value:    a.format("%.3f") + " ms", goal: "≤ 0.2 ms", ok: a.med <= 0.2})
	}
	return rows, nil
}

// connects runs prog through the launcher under spec and returns each
// connect's time in milliseconds.
func connects(ctx context.Context, prog, addr string, n int, spec launcher.Spec) ([]float64, error) {
	cmd := exec.CommandContext(ctx, prog, addr, strconv.Itoa(n))
	var out, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &stderr
	l, err := launcher.Wrap(cmd, spec, launcher.Process{UID: -1})
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		return nil, err
	}
	if _, err := l.Started(ctx); err != nil {
		_ = cmd.Wait()
		return nil, err
	}
	go l.Watch(func(launcher.Event) {})
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("connecter: %v: %s", err, stderr.String())
	}
	var ms []float64
	for _, f := range strings.Fields(out.String()) {
		us, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("connecter printed %q", f)
		}
		ms = append(ms, us/1000)
	}
	if len(ms) != n {
		return nil, fmt.Errorf("connecter timed %d connects, want %d", len(ms), n)
	}
	return ms, nil
}
